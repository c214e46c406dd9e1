import type { Impairment, ImpairmentTarget } from "../../domain/switching/impairment-overlay.js";

/**
 * Where netemu's impairments on GNS3 ports are kept, apart from the NIOs they act on: GNS3 deletes
 * and re-creates a port's NIO with each link and each project close/open, the impairment stays
 * (ADR 0067).
 */
export interface ImpairmentStore {
  list(): Promise<readonly Impairment[]>;
  /** Sets the impairment of its target port, replacing the one there was. */
  put(impairment: Impairment): Promise<void>;
  remove(target: ImpairmentTarget): Promise<void>;
}
