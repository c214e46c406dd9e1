import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNode, attachNio, detachNio, replaceNio } from "../../../domain/switching/compute-node.js";
import { type Nio, deviceOf, directional, filtersOfNio } from "../../../domain/switching/nio.js";
import { type CloudNode, insideNioOf } from "../../../domain/switching/cloud-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import { COMPUTE_PORT_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup, type PortAddress } from "./compute-lookup.js";
import { nioLogFields } from "./nio-log-fields.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";

export const ATTACH_REFUSALS = [...COMPUTE_PORT_LOOKUP_REFUSALS, "PortNotFound", "PortNotFree", "CloudPortFailed", ...SYNC_REFUSALS] as const;
export const REPLACE_REFUSALS = [...COMPUTE_PORT_LOOKUP_REFUSALS, "PortNotAllocated", ...SYNC_REFUSALS] as const;
export const DETACH_REFUSALS = REPLACE_REFUSALS;
type AttachError = Refusal<typeof ATTACH_REFUSALS>;
export type ReplaceError = Refusal<typeof REPLACE_REFUSALS>;
type DetachError = Refusal<typeof DETACH_REFUSALS>;

/**
 * A cloud's link made its port's inside end open (ADR 0082): when that end is what failed, the refusal
 * names the cloud and its port, since the user chose the tunnel or device there, not on the link.
 */
function cloudPortFailure(node: CloudNode, portNumber: number, error: Refusal<typeof SYNC_REFUSALS>): Refusal<typeof ATTACH_REFUSALS> {
  const port = node.portsMapping.find((p) => p.port_number === portNumber);
  if (port === undefined) return error;
  const inside = insideNioOf(port);
  const ours =
    (error._tag === "UdpConnectionFailed" && inside.type === "nio_udp" && error.rhost === inside.rhost && error.rport === inside.rport) ||
    (error._tag === "NioDeviceFailed" && inside.type !== "nio_udp" && error.device === deviceOf(inside));
  return ours && (error._tag === "UdpConnectionFailed" || error._tag === "NioDeviceFailed") ? { _tag: "CloudPortFailed", nodeName: node.name, portName: port.name, cause: error } : error;
}

/**
 * How a parsed NIO goes on a port, changes and goes, the same for a client's NIO (AddNio, UpdateNio,
 * RemoveNio) and a controller link's (LinkWiring), so that a value is parsed once, at its door: the
 * node changes in the domain, the data plane follows it, the record is saved only when that worked
 * (ADR 0037).
 */
@injectable()
export class NioAttachment {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    // The port's netemu impairments go on every NIO it gets, whoever sends it (ADR 0067).
    private readonly impairments: ImpairmentOverlay,
  ) {}

  /** Under the node's lock: attaches `nio` to a free port of the node the address names. */
  add(at: PortAddress, nio: Nio): Promise<E.Either<AttachError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      return E.isLeft(found) ? found : this.addTo(found.right, at, nio);
    });
  }

  /** Attaches `nio` to the node found by the caller, which holds the node's lock. */
  async addTo(node: ComputeNode, at: PortAddress, nio: Nio): Promise<E.Either<AttachError, Nio>> {
    const updated = attachNio(node, at.portNumber, nio);
    if (E.isLeft(updated)) return updated;
    const synced = await this.dataPlane.sync(await this.impairments.of(updated.right));
    if (E.isLeft(synced)) return E.left(node.nodeType === "cloud" ? cloudPortFailure(node, at.portNumber, synced.left) : synced.left);
    if (nio.type === "nio_udp") this.pool.claim(nio.lport, at.projectId);
    await this.nodes.save(updated.right);
    this.logger.info("NIO added", nioLogFields(at, nio));
    return E.right(nio);
  }

  /** Under the node's lock: the port's NIO becomes `change(current)` (its filters, its suspend flag). */
  replace(at: PortAddress, change: (current: Nio) => Nio): Promise<E.Either<ReplaceError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const current = found.right.nios.get(at.portNumber);
      if (current === undefined) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
      return this.replaceOn(found.right, at, current, change(current));
    });
  }

  /** Replaces the port's NIO `current` by `nio` on the node found by the caller, which holds the lock. */
  async replaceOn(node: ComputeNode, at: PortAddress, current: Nio, nio: Nio): Promise<E.Either<ReplaceError, Nio>> {
    const updated = replaceNio(node, at.portNumber, nio);
    if (E.isLeft(updated)) return updated;
    const synced = await this.dataPlane.sync(await this.impairments.of(updated.right));
    if (E.isLeft(synced)) return synced;
    await this.nodes.save(updated.right);
    if (current.type === "nio_udp") {
      // The filters as they now apply, and what they replaced: the line explains a change in traffic.
      const f = filtersOfNio(current);
      const before = { filters: f.filters, ...directional(f), suspend: current.suspend };
      this.logger.info("NIO filters changed", { ...nioLogFields(at, nio), before });
    }
    return E.right(nio);
  }

  /** Under the node's lock: detaches the port's NIO (its capture stops, its socket closes, its UDP port is freed). */
  remove(at: PortAddress): Promise<E.Either<DetachError, void>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const nio = found.right.nios.get(at.portNumber);
      const updated = detachNio(found.right, at.portNumber);
      if (E.isLeft(updated)) return updated;
      const synced = await this.dataPlane.sync(await this.impairments.of(updated.right));
      if (E.isLeft(synced)) return synced;
      if (nio?.type === "nio_udp") this.pool.release(nio.lport);
      await this.nodes.save(updated.right);
      this.logger.info("NIO removed", nioLogFields(at, nio));
      return E.right(undefined);
    });
  }
}
