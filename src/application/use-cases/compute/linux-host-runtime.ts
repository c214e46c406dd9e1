import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { hostStopped } from "../../../domain/switching/host-node.js";
import { type NetemuHostNode, hostTapName, netemuHostStarted } from "../../../domain/switching/netemu-host-node.js";
import type { HostCommandResult, NamespaceHosts } from "../../ports/namespace-hosts.js";
import type { Notifications } from "../../ports/notifications.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { type ErrorOf, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";

/** What starting or stopping a Linux host can answer instead of its result. */
export const LINUX_HOST_START_REFUSALS = ["LinuxHostFailed", ...SYNC_REFUSALS] as const;
export type LinuxHostStartError = Refusal<typeof LINUX_HOST_START_REFUSALS>;

/**
 * What runs a Linux host (ADR 0087): its namespace and TAPs through NamespaceHosts, the TAPs opened by
 * the data plane as the inside ends of its ports. Start makes the namespace and TAPs, has the data plane
 * open them, then moves them in (addresses, route); stop has the data plane let go first, then removes
 * the namespace. A data-plane worker that restarts opens each TAP again by name, which makes a new one
 * in netemu's namespace: its host is plugged again. The caller holds the node's lock.
 */
@injectable()
export class LinuxHostRuntime {
  constructor(
    @inject(TOKENS.NamespaceHosts) private readonly hosts: NamespaceHosts,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    private readonly changes: NodeChanges,
    private readonly lookup: ComputeLookup,
  ) {}

  /** The hosts running now; a restarted worker's node.restored is listened for only while there are some. */
  private readonly running = new Set<string>();
  private unsubscribe: (() => void) | undefined;

  private ran(nodeId: string, running: boolean): void {
    if (running) this.running.add(nodeId);
    else this.running.delete(nodeId);
    if (this.running.size > 0 && this.unsubscribe === undefined) {
      this.unsubscribe = this.notifications.subscribe((n) => {
        if (n.kind === "node.restored" && n.node.nodeType === "netemu_host" && this.running.has(n.node.nodeId)) void this.plugAgain(n.node.projectId, n.node.nodeId);
      });
    } else if (this.running.size === 0 && this.unsubscribe !== undefined) {
      this.unsubscribe();
      this.unsubscribe = undefined;
    }
  }

  async start(node: NetemuHostNode): Promise<E.Either<LinuxHostStartError, NetemuHostNode>> {
    const made = await this.hosts.create({
      name: node.nodeId,
      interfaces: node.interfaces.map((i, n) => ({ tap: hostTapName(node.nodeId, n), inside: i.name, addresses: i.address === undefined ? [] : [i.address], ...(i.mac === undefined ? {} : { macAddress: i.mac }) })),
      ...(node.gateway === null ? {} : { gateway: node.gateway }),
    });
    if (E.isLeft(made)) return E.left({ _tag: "LinuxHostFailed", nodeName: node.name, problem: made.left });
    // The data plane opens the TAPs while they are in netemu's namespace, then they move in.
    const started = netemuHostStarted(node);
    const synced = await this.changes.apply(node, started);
    if (E.isLeft(synced)) return await this.hosts.destroy(node.nodeId), synced;
    const plugged = await this.hosts.plug(node.nodeId);
    if (E.isLeft(plugged)) {
      await this.changes.apply(started, hostStopped(started));
      await this.hosts.destroy(node.nodeId);
      return E.left({ _tag: "LinuxHostFailed", nodeName: node.name, problem: plugged.left });
    }
    this.ran(node.nodeId, true);
    this.logger.info("Linux host started", { nodeId: node.nodeId, name: node.name, taps: made.right.taps, namespace: made.right.namespace });
    return E.right(started);
  }

  /** The data plane lets go of the TAPs, then the namespace goes (and the TAPs in it). */
  async stop(node: NetemuHostNode): Promise<E.Either<LinuxHostStartError, NetemuHostNode>> {
    const stopped = hostStopped(node);
    const synced = await this.changes.apply(node, stopped);
    await this.hosts.destroy(node.nodeId);
    this.ran(node.nodeId, false);
    return E.isLeft(synced) ? synced : E.right(stopped);
  }

  /** Before a delete: the namespace goes (the data plane's node goes with the delete). */
  async remove(nodeId: string): Promise<void> {
    await this.hosts.destroy(nodeId);
    this.ran(nodeId, false);
  }

  exec(node: NetemuHostNode, argv: readonly string[], timeoutMs: number, maxOutputBytes: number): Promise<E.Either<ErrorOf<"LinuxHostFailed">, HostCommandResult>> {
    return this.hosts.exec(node.nodeId, argv, { timeoutMs, maxOutputBytes }).then(E.mapLeft((problem) => ({ _tag: "LinuxHostFailed" as const, nodeName: node.name, problem })));
  }

  /** A restarted worker made each TAP again in netemu's namespace: they move into the host again. */
  private plugAgain(projectId: string, nodeId: string): Promise<void> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "netemu_host");
      if (E.isLeft(found) || found.right.status !== "started") return;
      const plugged = await this.hosts.plug(nodeId);
      if (E.isLeft(plugged)) this.logger.error("a Linux host could not be plugged again after its data plane worker restarted", { nodeId, name: found.right.name, problem: plugged.left });
      else this.logger.info("Linux host plugged again after its data plane worker restarted", { nodeId, name: found.right.name });
    });
  }
}
