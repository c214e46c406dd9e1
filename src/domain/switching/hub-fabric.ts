import { ETH_HEADER_LEN } from "../ethernet/frame.js";
import { ForwardResult } from "./forwarding.js";
import { PortCounters } from "./port-counters.js";

/**
 * The forwarding plane of one Ethernet hub: a frame received on a port goes out, byte for byte, of
 * every other attached port. No learning, no VLANs: a hub repeats. Pure, like the switch fabric,
 * and answering with the same reused ForwardResult so the data plane drives both alike.
 */
export class HubFabric {
  /**
   * With `pairOf`, a frame goes only to the ingress port's pair (a host's fabric: each port is wired to
   * its inside port, ADR 0081); without, to every other port.
   */
  constructor(private readonly pairOf?: (portNumber: number) => number) {}

  private readonly ports = new Map<number, PortCounters>();
  /** Attached port numbers in ascending order: the order frames are repeated in. */
  private order: number[] = [];
  private readonly result = new ForwardResult();

  setPort(portNumber: number): void {
    if (this.ports.has(portNumber)) return;
    this.ports.set(portNumber, new PortCounters());
    this.order = [...this.ports.keys()].sort((a, b) => a - b);
  }

  removePort(portNumber: number): void {
    if (!this.ports.delete(portNumber)) return;
    this.order = this.order.filter((p) => p !== portNumber);
  }

  hasPort(portNumber: number): boolean {
    return this.ports.has(portNumber);
  }

  counters(portNumber: number): PortCounters | undefined {
    return this.ports.get(portNumber);
  }

  /** Repeats one frame; counts framesIn / framesForwarded / drops on the ingress port and framesOffered on the others. */
  forward(ingressPort: number, frame: Uint8Array): ForwardResult {
    const r = this.result;
    r.reset();
    const counters = this.ports.get(ingressPort);
    if (counters === undefined) {
      r.drop = "unattached";
      return r;
    }
    counters.countIn(frame.length);
    // Shorter than an Ethernet header is not a frame, whatever a hub would do with the bits.
    if (frame.length < ETH_HEADER_LEN) return this.dropped(counters, "runt");
    if (this.pairOf !== undefined) {
      const pair = this.ports.get(this.pairOf(ingressPort));
      if (pair !== undefined) {
        r.add(this.pairOf(ingressPort), frame);
        pair.framesOffered++;
      }
    } else {
      for (const port of this.order) {
        if (port === ingressPort) continue;
        r.add(port, frame);
        (this.ports.get(port) as PortCounters).framesOffered++;
      }
    }
    if (r.count === 0) return this.dropped(counters, "no_route");
    counters.framesForwarded++;
    return r;
  }

  private dropped(counters: PortCounters, reason: "runt" | "no_route"): ForwardResult {
    counters.countIngressDrop(reason);
    this.result.drop = reason;
    return this.result;
  }
}
