import type * as E from "fp-ts/lib/Either.js";
import type { SocketHandover, UdpEndpoint } from "./udp-transport.js";

/** A TAP device, or a host interface read and written raw (ADR 0083). */
type HostDeviceKind = "tap" | "ethernet";

/** The privilege each kind needs: creating or attaching a TAP, opening a packet socket. */
export const CAPABILITY_OF: { readonly [K in HostDeviceKind]: "CAP_NET_ADMIN" | "CAP_NET_RAW" } = { tap: "CAP_NET_ADMIN", ethernet: "CAP_NET_RAW" };

/** Why a device could not be opened, as data; the HTTP adapter words it. */
export type HostDeviceProblem =
  /** No interface of that name (a host interface; a TAP is created when absent). */
  | { readonly problem: "not_found" }
  /** netemu runs without the capability the device needs (not root, no file capability). */
  | { readonly problem: "missing_capability"; readonly capability: "CAP_NET_ADMIN" | "CAP_NET_RAW" }
  /** A TAP that another program (or another port) holds already. */
  | { readonly problem: "busy" }
  /** An interface of that name that is not a TAP device (or a TAP made with other flags). */
  | { readonly problem: "not_a_tap" }
  /** netemu cannot open devices at all here: its native addon is not built, or the host is not Linux. */
  | { readonly problem: "unsupported"; readonly reason: string }
  /** Anything else the kernel answered: its errno name and text. */
  | { readonly problem: "os_error"; readonly code: string; readonly detail: string };

export interface HostDeviceOptions {
  readonly kind: HostDeviceKind;
  readonly device: string;
  /** Called for every frame that comes in on the device. */
  readonly onFrame: (frame: Uint8Array) => void;
  /** Called when the device fails after it was opened (a TAP deleted under it, an interface gone down). */
  readonly onError?: (reason: string) => void;
  /** The device's fd another thread handed over (a node moving between workers): taken over when it is this device's. */
  readonly handover?: SocketHandover;
}

/** Host devices as NIO endpoints: the same endpoint shape as a UDP NIO's, so the frame path does not know the difference. */
export interface HostDevices {
  open(options: HostDeviceOptions): Promise<E.Either<HostDeviceProblem, UdpEndpoint>>;
}
