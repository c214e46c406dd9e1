import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { UdpNio } from "../../../domain/switching/nio.js";
import { NO_FILTERS } from "../../../domain/filters/filter-settings.js";
import { type VpcsNode, hostStarted, hostStopped } from "../../../domain/switching/host-node.js";
import { parseVpcsVersion, type VpcsVersion, vpcsCommand } from "../../../domain/switching/vpcs-command.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { ConsolePortPool, HostProcesses, ProcessExit } from "../../ports/host-processes.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { Notifications } from "../../ports/notifications.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { NodeChanges } from "./node-changes.js";

/** What starting a host can answer instead of its result. */
export const HOST_START_REFUSALS = ["HostProgramUnusable", "HostStartFailed", "NoFreeUdpPort", "UdpPortCheckFailed", "ConsolePortUnavailable", ...SYNC_REFUSALS] as const;
export type HostStartError = Refusal<typeof HOST_START_REFUSALS>;

/** VPCS's startup script, in the node's directory (GNS3's name: VPCS reads it when given no other). */
export const VPCS_SCRIPT = "startup.vpc";
const VPCS_LOG = "vpcs.log";
/** GNS3 gives each VPCS of a project its own MAC offset, 0 to 254. */
const MAC_IDS = 255;

/** The address VPCS sends its frames to: the data plane's own when it binds one IPv4 address, else loopback. */
function tunnelHost(host: string): string {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) && host !== "0.0.0.0" ? host : "127.0.0.1";
}

/**
 * Where VPCS's frames come from, as the data plane's connected socket must name it: the kernel sends to
 * any 127/8 address from 127.0.0.1 (the loopback route's source), to another local address from itself.
 */
function processHost(sentTo: string): string {
  return sentTo.startsWith("127.") ? "127.0.0.1" : sentTo;
}

/**
 * The processes behind host nodes (ADR 0081), as GNS3's compute runs VPCS: started with the node (the
 * data plane's end of its tunnel open first, so its first frame is heard), stopped with it, and a
 * process that dies on its own makes its node stopped, with a log.error its controller shows. The
 * caller holds the node's lock.
 */
@injectable()
export class HostRuntime {
  constructor(
    @inject(TOKENS.HostProcesses) private readonly processes: HostProcesses,
    @inject(TOKENS.ConsolePortPool) private readonly consoles: ConsolePortPool,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    private readonly changes: NodeChanges,
  ) {
    processes.onExit((exit) => void this.died(exit));
  }

  /**
   * The version of each program probed, by its file's identity: `vpcs -v` runs once per program file, not
   * once per start (a replaced or rebuilt binary has another identity and is probed again). Starts that
   * come together share one probe; a probe that fails is not kept.
   */
  private readonly probed = new Map<string, { readonly identity: string; readonly version: Promise<E.Either<string, VpcsVersion>> }>();

  /** MAC offsets taken by starts under way (not yet saved as started), by node: concurrent starts of one project must not share one. */
  private readonly macsClaimed = new Map<string, { readonly projectId: string; readonly macId: number }>();

  private async versionOf(program: string): Promise<E.Either<string, VpcsVersion>> {
    const identity = await this.processes.identify(program);
    const known = this.probed.get(program);
    if (identity !== undefined && known !== undefined && known.identity === identity) return known.version;
    const version = this.processes.probe(program, ["-v"], "/").then((probe) => (E.isLeft(probe) ? probe : E.mapLeft((reason: string) => `${program}: ${reason}`)(parseVpcsVersion(probe.right))));
    if (identity === undefined) return version;
    this.probed.set(program, { identity, version });
    const answer = await version;
    if (E.isLeft(answer) && this.probed.get(program)?.version === version) this.probed.delete(program);
    return answer;
  }

  private get program(): string {
    return this.settings.vpcsPath ?? "vpcs";
  }

  /** Starts the node's process; the node is started (and saved) only when it runs. */
  async start(node: VpcsNode): Promise<E.Either<HostStartError, VpcsNode>> {
    const program = this.program;
    const version = await this.versionOf(program);
    if (E.isLeft(version)) return E.left({ _tag: "HostProgramUnusable", nodeName: node.name, program, reason: version.left });
    // VPCS always listens for a console; a node without one (console_type none) gets one for the run only.
    let consolePort = node.console;
    if (consolePort === null) {
      const reserved = await this.consoles.reserve();
      if (E.isLeft(reserved)) return E.left({ _tag: "ConsolePortUnavailable", ...reserved.left });
      consolePort = reserved.right;
    }
    const releaseConsole = () => {
      if (node.console === null) this.consoles.release(consolePort);
    };
    const ours = await this.pool.reserve(node.projectId);
    if (E.isLeft(ours)) return releaseConsole(), ours;
    const theirs = await this.pool.reserve(node.projectId);
    if (E.isLeft(theirs)) return releaseConsole(), this.pool.release(ours.right), theirs;
    const host = tunnelHost(this.settings.host);
    const inside: UdpNio = { type: "nio_udp", lport: ours.right, rhost: processHost(host), rport: theirs.right, filters: NO_FILTERS, suspend: false };
    const script = await this.processes.readFile(`${node.directory}/${VPCS_SCRIPT}`);
    const macId = await this.macIdFor(node);
    try {
      const command = vpcsCommand(version.right, { consolePort, macId, localPort: theirs.right, remotePort: ours.right, remoteHost: host, ...(script === undefined ? {} : { script: VPCS_SCRIPT }) });
      const started = hostStarted(node, new Map([[0, inside]]), [program, ...command.args].join(" "));
      const release = () => {
        releaseConsole();
        this.pool.release(ours.right);
        this.pool.release(theirs.right);
      };
      // The data plane's end first: VPCS's first frames (its router solicitations) find it open.
      const synced = await this.changes.apply(node, started);
      if (E.isLeft(synced)) return release(), synced;
      const run = await this.processes.start({
        key: node.nodeId,
        program,
        args: command.args,
        cwd: node.directory,
        logFile: `${node.directory}/${VPCS_LOG}`,
        // A VPCS that daemonizes is found by the UDP port it was told to bind (ADR 0088).
        ...(command.daemonizes ? { daemon: { udpPort: theirs.right } } : { listens: { tcpPort: consolePort, udpPort: theirs.right } }),
      });
      if (E.isLeft(run)) {
        await this.changes.apply(started, hostStopped({ ...started, commandLine: node.commandLine }));
        release();
        return E.left({ _tag: "HostStartFailed", nodeName: node.name, program, reason: run.left });
      }
      this.running.set(node.nodeId, { pid: run.right.pid, release });
      return E.right(started);
    } finally {
      this.macsClaimed.delete(node.nodeId);
    }
  }

  /** What each running host holds: its pid, and how to give back its ports. */
  private readonly running = new Map<string, { readonly pid: number; readonly release: () => void }>();

  /** Ends the node's process and gives back its ports; the node, stopped, is saved. */
  async stop(node: VpcsNode): Promise<E.Either<HostStartError, VpcsNode>> {
    await this.processes.stop(node.nodeId);
    this.forget(node.nodeId);
    const stopped = hostStopped(node);
    const synced = await this.changes.apply(node, stopped);
    return E.isLeft(synced) ? synced : E.right(stopped);
  }

  /** Ends the node's process before it is deleted (its record and data-plane node go with the delete). */
  async remove(nodeId: string): Promise<void> {
    await this.processes.stop(nodeId);
    this.forget(nodeId);
  }

  private forget(nodeId: string): void {
    this.running.get(nodeId)?.release();
    this.running.delete(nodeId);
  }

  /** The lowest MAC offset no other started VPCS of the project has (two equal MACs on one LAN break ARP). */
  private async macIdFor(node: VpcsNode): Promise<number> {
    const used = new Set<number>();
    for (const other of await this.nodes.list()) {
      if (other.nodeType !== "vpcs" || other.projectId !== node.projectId || other.nodeId === node.nodeId || other.status !== "started") continue;
      const m = / -m (\d+) /.exec(other.commandLine);
      if (m !== null) used.add(Number(m[1]));
    }
    for (const [nodeId, claim] of this.macsClaimed) if (claim.projectId === node.projectId && nodeId !== node.nodeId) used.add(claim.macId);
    let chosen = 0;
    for (let id = 0; id < MAC_IDS; id++)
      if (!used.has(id)) {
        chosen = id;
        break;
      }
    // Claimed at once (no await between the look and the claim): a start beside it sees it.
    this.macsClaimed.set(node.nodeId, { projectId: node.projectId, macId: chosen });
    return chosen;
  }

  /** A process that ended on its own: its node stops, and its controller hears why (GNS3's words). */
  private died(exit: ProcessExit): Promise<void> {
    return this.lock.run(exit.key, async () => {
      const held = this.running.get(exit.key);
      if (held === undefined || held.pid !== exit.pid) return;
      this.forget(exit.key);
      const node = await this.nodes.get(exit.key);
      if (node === undefined || node.nodeType !== "vpcs") return;
      const synced = await this.changes.apply(node, hostStopped(node));
      if (E.isLeft(synced)) this.logger.error("a host whose process died could not be stopped in the data plane", { nodeId: node.nodeId, reason: synced.left._tag });
      const how = exit.signal !== null ? exit.signal : exit.code !== null ? String(exit.code) : "unknown (a daemon's status goes to init)";
      this.notifications.publish({ kind: "log", severity: "error", projectId: node.projectId, message: `VPCS process of ${node.name} has stopped, return code: ${how}\n${exit.output}` });
    });
  }

  /** Ends every host process (shutdown). */
  async stopAll(): Promise<void> {
    await this.processes.stopAll();
    for (const nodeId of [...this.running.keys()]) this.forget(nodeId);
  }
}
