import type * as E from "fp-ts/lib/Either.js";
import type { Impairment, ImpairmentTarget } from "../../domain/switching/impairment-overlay.js";
import type { ErrorOf } from "../errors.js";

/** One change to the impairments: a port's impairment set (replacing the one there was), or removed. */
export type ImpairmentChange =
  | { readonly _tag: "Set"; readonly impairment: Impairment }
  | { readonly _tag: "Remove"; readonly target: ImpairmentTarget };

/** Why a change was not recorded: the store could not make it durable; nothing changed (ADR 0071). */
export type ImpairmentStoreRefusal = ErrorOf<"ImpairmentsUnwritable">;

/**
 * Where netemu's impairments on GNS3 ports are kept, apart from the NIOs they act on: GNS3 deletes
 * and re-creates a port's NIO with each link and each project close/open, the impairment stays
 * (ADR 0067).
 *
 * Reads never fail and never wait on the disk beyond a bounded first read: the data plane asks for a
 * node's impairments on every NIO it is given, and that work must go on whatever the store's file
 * is. Changes are serialised by the store itself (ADR 0071): two changes at once, on any ports, are
 * both kept, and each is answered only once it is as durable as the store makes it.
 */
export interface ImpairmentStore {
  list(): Promise<readonly Impairment[]>;
  /** The impairments of one node's ports; costs what that node has, not what the store holds. */
  ofNode(nodeId: string): Promise<readonly Impairment[]>;
  /** Makes the changes, in order, all or none; answers once they are recorded. */
  apply(changes: readonly ImpairmentChange[]): Promise<E.Either<ImpairmentStoreRefusal, void>>;
}
