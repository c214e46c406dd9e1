import * as E from "fp-ts/lib/Either.js";
import type { Impairment } from "../../domain/switching/impairment-overlay.js";
import type { ImpairmentChange, ImpairmentStore, ImpairmentStoreRefusal } from "../../application/ports/impairment-store.js";
import { ImpairmentIndex } from "./impairment-index.js";

/** The embedding default: impairments last as long as the process. */
export class InMemoryImpairmentStore implements ImpairmentStore {
  private readonly entries = new ImpairmentIndex();

  async list(): Promise<readonly Impairment[]> {
    return this.entries.all();
  }

  async ofNode(nodeId: string): Promise<readonly Impairment[]> {
    return this.entries.ofNode(nodeId);
  }

  async apply(changes: readonly ImpairmentChange[]): Promise<E.Either<ImpairmentStoreRefusal, void>> {
    for (const c of changes) {
      if (c._tag === "Set") this.entries.set(c.impairment);
      else this.entries.remove(c.target);
    }
    return E.right(undefined);
  }
}
