import { inject, injectable } from "tsyringe";
import type { DarkWorker, DataPlaneHealth } from "../../ports/data-plane-health.js";
import { TOKENS } from "../../ports/tokens.js";

/** What bringing the data plane back did, and what is still dark after it. */
export interface BroughtBack {
  /** The given-up workers started again. */
  readonly restartedWorkers: readonly number[];
  /** Workers whose nodes are still dark (a worker that died again at once, a node that could not be given back). */
  readonly darkWorkers: readonly DarkWorker[];
}

/**
 * The operator's way back for nodes left dark by a data-plane worker that kept dying (ADR 0073),
 * without restarting netemu: the given-up workers start again at once, with their nodes as last
 * recorded (change or stop the node that killed them first), and nodes a worker could not take back
 * are synced again. Answers once they are back, or dark again.
 */
@injectable()
export class BringBackDataPlane {
  constructor(@inject(TOKENS.DataPlaneHealth) private readonly dataPlane: DataPlaneHealth) {}

  async execute(): Promise<BroughtBack> {
    const restartedWorkers = await this.dataPlane.bringBack();
    return { restartedWorkers, darkWorkers: this.dataPlane.darkWorkers() };
  }
}
