import type { Impairment, ImpairmentTarget } from "../../domain/switching/impairment-overlay.js";
import { sameTarget } from "../../domain/switching/impairment-overlay.js";
import type { ImpairmentStore } from "../../application/ports/impairment-store.js";

/** The embedding default: impairments last as long as the process. */
export class InMemoryImpairmentStore implements ImpairmentStore {
  private entries: readonly Impairment[] = [];

  async list(): Promise<readonly Impairment[]> {
    return this.entries;
  }

  async put(impairment: Impairment): Promise<void> {
    this.entries = [...this.entries.filter((e) => !sameTarget(e, impairment)), impairment];
  }

  async remove(target: ImpairmentTarget): Promise<void> {
    this.entries = this.entries.filter((e) => !sameTarget(e, target));
  }
}
