import * as E from "fp-ts/lib/Either.js";
import type { HostDeviceOptions, HostDeviceProblem, HostDevices } from "../../application/ports/host-devices.js";
import { CAPABILITY_OF } from "../../application/ports/host-devices.js";
import type { UdpEndpoint } from "../../application/ports/udp-transport.js";
import { BatchedEndpoint, framesOfBatches, type UdpBatchAddon, loadUdpBatchAddon } from "./batched-udp-transport.js";

/** What the kernel's errno means for a device of that kind (ADR 0083). */
export function deviceProblem(kind: HostDeviceOptions["kind"], code: string, detail: string): HostDeviceProblem {
  switch (code) {
    case "EPERM":
    case "EACCES":
      return { problem: "missing_capability", capability: CAPABILITY_OF[kind] };
    case "ENODEV":
    case "ENXIO":
      return { problem: "not_found" };
    case "EBUSY":
      return kind === "tap" ? { problem: "busy" } : { problem: "os_error", code, detail };
    case "EINVAL":
      return kind === "tap" ? { problem: "not_a_tap" } : { problem: "os_error", code, detail };
    default:
      return { problem: "os_error", code, detail };
  }
}

/**
 * TAP devices and host interfaces through the native addon (ADR 0083): the same uv_poll readiness,
 * batches and send gathering as the batched UDP path, whichever datagram path the UDP NIOs take.
 */
class AddonHostDevices implements HostDevices {
  constructor(private readonly addon: UdpBatchAddon) {}

  open(o: HostDeviceOptions): Promise<E.Either<HostDeviceProblem, UdpEndpoint>> {
    const onBatch = framesOfBatches(o.onFrame);
    const onError = (code: string, message: string): void => o.onError?.(`${code}: ${message}`);
    const handover = o.handover;
    if (handover !== undefined && Number.isInteger(handover.fd) && handover.fd >= 0) {
      try {
        return Promise.resolve(E.right(new BatchedEndpoint(this.addon, this.addon.adoptDevice(handover.fd, o.kind, o.device, onBatch, onError))));
      } catch {
        // Not this device's fd (any more): opened afresh below.
      }
    }
    try {
      const handle = o.kind === "tap" ? this.addon.openTap(o.device, onBatch, onError) : this.addon.openEthernet(o.device, onBatch, onError);
      return Promise.resolve(E.right(new BatchedEndpoint(this.addon, handle)));
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      return Promise.resolve(E.left(deviceProblem(o.kind, typeof e.code === "string" ? e.code : "EIO", typeof e.message === "string" ? e.message : String(err))));
    }
  }
}

/** Where devices cannot be opened (no addon, not Linux): every open is refused with the reason, said once at start. */
export class NoHostDevices implements HostDevices {
  constructor(readonly reason: string) {}

  open(_o: HostDeviceOptions): Promise<E.Either<HostDeviceProblem, UdpEndpoint>> {
    return Promise.resolve(E.left({ problem: "unsupported", reason: this.reason }));
  }
}

/**
 * The addon's devices when it loads (NETEMU_UDP_PATH=dgram does not matter: it picks the datagram
 * path only), else a refusal naming why: the main thread and every data-plane worker choose alike.
 */
export function chooseHostDevices(load: (env: NodeJS.ProcessEnv) => UdpBatchAddon = loadUdpBatchAddon, env: NodeJS.ProcessEnv = process.env): HostDevices {
  try {
    const addon = load(env);
    if (typeof addon.openTap !== "function") return new NoHostDevices("the native addon was built before TAP and Ethernet NIOs existed: npm run build:native builds it again");
    return new AddonHostDevices(addon);
  } catch (err) {
    return new NoHostDevices(`TAP and Ethernet NIOs need netemu's native addon, which is not available (${err instanceof Error ? err.message : String(err)})`);
  }
}
