import type { UdpTransport } from "../../application/ports/udp-transport.js";
import type { Logger } from "../../application/ports/system.js";
import { chooseUdpTransport, type UdpPath } from "./batched-udp-transport.js";
import type { DgramOptions } from "./dgram-udp-transport.js";
import { InProcessLinks } from "./in-process-links.js";
import { inProcessLinksScope, inProcessLinksSetting } from "../shared/in-process-links-setting.js";
import { doorbellsAvailable } from "./ring-wakeups.js";

/** Which datagram path the UDP NIOs run on, and why not the batched one (ADR 0068); "host" when the host gave its own transport. */
export type DatagramPath = UdpPath | { readonly kind: "host" };

/**
 * The address the UDP NIOs bind and the buffers of their sockets: the API's own host, except that a
 * name ("localhost") is bound as its IPv4 address.
 */
export function datagramOptions(host: string, bufferBytes: number): DgramOptions {
  const bindHost = host === "::" || host === "0.0.0.0" ? host : host === "localhost" ? "127.0.0.1" : host;
  return { bindHost, receiveBufferBytes: bufferBytes, sendBufferBytes: bufferBytes };
}

/**
 * The host's own transport when it gives one; else the batched datagram path when its addon was
 * built, node:dgram otherwise (ADR 0068), said once at start. Data-plane workers make the same choice
 * by the same rule (same addon file, same environment).
 */
export function chooseDatagramPath(
  hostTransport: UdpTransport | undefined,
  options: DgramOptions,
  logger: Logger,
  choose: (options: DgramOptions) => { readonly transport: UdpTransport; readonly path: UdpPath } = chooseUdpTransport,
): { readonly transport: UdpTransport; readonly path: DatagramPath } {
  if (hostTransport !== undefined) return { transport: hostTransport, path: { kind: "host" } };
  const chosen = choose(options);
  if (chosen.path.kind === "batched") {
    const us = chosen.path.coalescingMicroseconds;
    logger.info("datagram path: batched (recvmmsg/sendmmsg addon)", us > 0 ? { receiveCoalescingMicroseconds: us } : undefined);
  } else logger.info("datagram path: node:dgram", { reason: chosen.path.reason });
  return chosen;
}

/**
 * The chosen datagram path with in-process links over it (ADR 0105), between threads too where the
 * addon's doorbells are there (ADR 0111, 0112), as NETEMU_IN_PROCESS_LINKS says (off, thread, threads);
 * a host's own transport is left as it is (its sockets are its own). `logger` says it once at start;
 * a data-plane worker decides by the same rule and says nothing.
 */
export function withInProcessLinks(
  chosen: { readonly transport: UdpTransport; readonly path: DatagramPath },
  options: DgramOptions,
  logger?: Logger,
  env: NodeJS.ProcessEnv = process.env,
  doorbells: () => boolean = doorbellsAvailable,
): UdpTransport {
  if (chosen.path.kind === "host") return chosen.transport;
  const scope = inProcessLinksScope(env, doorbells);
  const asked = inProcessLinksSetting(env["NETEMU_IN_PROCESS_LINKS"]) === "thread";
  if (scope === "thread") logger?.info("in-process links: on within each thread (a link between two NIOs of one data-plane thread skips the kernel)", asked ? undefined : { betweenThreads: "off: the addon's doorbells are not there (ADR 0112)" });
  else if (scope === "threads") logger?.info("in-process links: on, between threads too (a link between two NIOs of this process skips the kernel)");
  else logger?.info("in-process links: off", { reason: "NETEMU_IN_PROCESS_LINKS" });
  return scope === "off" ? chosen.transport : new InProcessLinks(chosen.transport, { ...options, betweenThreads: scope === "threads" });
}
