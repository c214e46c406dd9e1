import type * as E from "fp-ts/lib/Either.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";
import type { Nio } from "../../domain/switching/nio.js";
import type { NetemuError } from "../errors.js";

export interface PortCounters {
  readonly framesIn: number;
  readonly bytesIn: number;
  readonly framesOut: number;
  readonly bytesOut: number;
  readonly drops: Readonly<Record<string, number>>;
}

export interface MacTableEntry {
  readonly mac: string;
  readonly vlan: number;
  readonly port: number;
  readonly age: number;
}

/**
 * The frame-moving side of the switches and hubs: sockets, forwarding and filter chains. The use
 * cases keep the records; this port makes the live state follow them.
 */
export interface DataPlane {
  /** Opens the NIO's transport and adds its port to the node's forwarding. */
  attach(node: ComputeNode, portNumber: number, nio: Nio): Promise<E.Either<NetemuError, void>>;
  /** Closes the port's transport and forgets its MAC entries. */
  detach(nodeId: string, portNumber: number): Promise<void>;
  /** Applies a NIO's new filters and suspend flag from the next frame on. */
  reconfigure(nodeId: string, portNumber: number, nio: Nio): E.Either<NetemuError, void>;
  /**
   * Makes the live node follow its record: a switch's ports_mapping, the status (only a started
   * node forwards; stopping a switch also empties its MAC table) and the name used in messages.
   */
  update(node: ComputeNode): void;
  /** Closes every transport of the node. */
  removeNode(nodeId: string): Promise<void>;
  counters(nodeId: string): ReadonlyMap<number, PortCounters>;
  macTable(nodeId: string): readonly MacTableEntry[];
  startCapture(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<NetemuError, void>>;
  stopCapture(nodeId: string, portNumber: number): Promise<void>;
  isCapturing(nodeId: string, portNumber: number): boolean;
  /** The file the port's running capture writes, if any. */
  captureFile(nodeId: string, portNumber: number): string | undefined;
  /** Closes everything (shutdown). */
  close(): Promise<void>;
}
