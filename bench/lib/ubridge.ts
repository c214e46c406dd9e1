/**
 * uBridge 0.9.19 as GNS3 runs it, for the benchmarks that compare netemu with it: one process in
 * hypervisor mode, one bridge between two UDP NIOs (its two threads, one per direction), kernel-default
 * socket buffers. `../shared/gns3-peer/install.sh` builds it; NETEMU_BENCH_UBRIDGE points elsewhere.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import { freeTcpPort } from "../../test/support/free-tcp-port.js";
import { sleep, stopProcess } from "./util.js";

export const UBRIDGE = process.env["NETEMU_BENCH_UBRIDGE"] ?? "/opt/gns3-peer/bin/ubridge";

/** One UDP NIO of the bridge: uBridge binds `lport` on 127.0.0.1 and sends to 127.0.0.1:`rport`. */
export interface UbridgeNio {
  readonly lport: number;
  readonly rport: number;
}

export interface UbridgeBridge {
  readonly pid: number;
  /** The version the hypervisor reports ("0.9.19"). */
  readonly version: string;
  /** SIGTERM, then SIGKILL after 3 s; by pid, once. */
  stop(): Promise<void>;
}

/** Sends hypervisor commands one by one, reading each answer line (uBridge answers `100-...` on success). */
export function hypervisor(port: number, commands: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, "127.0.0.1");
    const answers: string[] = [];
    let buffered = "";
    let sent = 0;
    const next = (): void => {
      if (sent === commands.length) {
        socket.end();
        resolve(answers);
        return;
      }
      socket.write(`${commands[sent++]}\n`);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`uBridge hypervisor: no answer to ${commands[sent - 1]}`));
    }, 5000);
    socket.on("connect", next);
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("data", (d) => {
      buffered += d.toString("utf8");
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        answers.push(line);
        if (!line.startsWith("100-")) {
          clearTimeout(timer);
          socket.destroy();
          reject(new Error(`uBridge hypervisor: ${commands[sent - 1]} → ${line}`));
          return;
        }
        if (sent === commands.length) clearTimeout(timer);
        next();
      }
    });
  });
}

/**
 * Starts uBridge and bridges the two NIOs. `cpu` pins it (and its threads, started with it) to one CPU
 * with taskset, as the forwarder benchmarks do; unpinned otherwise.
 */
export async function startUbridgeBridge(nios: readonly [UbridgeNio, UbridgeNio], options: { readonly cpu?: number } = {}): Promise<UbridgeBridge> {
  const control = await freeTcpPort();
  const args = ["-H", `127.0.0.1:${control}`];
  const proc: ChildProcess =
    options.cpu === undefined ? spawn(UBRIDGE, args, { stdio: ["ignore", "ignore", "pipe"] }) : spawn("taskset", ["-c", String(options.cpu), UBRIDGE, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  proc.stderr?.on("data", (d: Buffer) => void (stderr += d.toString("utf8")));
  const stop = (): Promise<void> => stopProcess(proc);
  try {
    let version = "";
    for (let attempt = 0; ; attempt++) {
      try {
        version = (await hypervisor(control, ["hypervisor version"]))[0] ?? "";
        break;
      } catch (err) {
        if (attempt > 50 || proc.exitCode !== null) throw new Error(`uBridge did not start: ${err instanceof Error ? err.message : String(err)} ${stderr}`);
        await sleep(100);
      }
    }
    const [a, b] = nios;
    await hypervisor(control, ["bridge create b", `bridge add_nio_udp b ${a.lport} 127.0.0.1 ${a.rport}`, `bridge add_nio_udp b ${b.lport} 127.0.0.1 ${b.rport}`, "bridge start b"]);
    await sleep(50);
    if (proc.pid === undefined) throw new Error("uBridge has no pid");
    return { pid: proc.pid, version: version.replace(/^100-/, ""), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
