import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { PortAddress } from "./compute-lookup.js";
import type { Refusal } from "../../errors.js";
import { DETACH_REFUSALS, NioAttachment } from "./nio-attachment.js";

/** What RemoveNio can answer instead of its result. */
export const REMOVE_NIO_REFUSALS = DETACH_REFUSALS;
export type RemoveNioError = Refusal<typeof REMOVE_NIO_REFUSALS>;

/** Detaches a port's NIO: stops its capture, closes its socket, frees its UDP port. */
@injectable()
export class RemoveNio {
  constructor(private readonly attachment: NioAttachment) {}

  execute({ port: at }: { readonly port: PortAddress }): Promise<E.Either<RemoveNioError, void>> {
    return this.attachment.remove(at);
  }
}
