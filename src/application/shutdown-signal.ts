import { injectable } from "tsyringe";

/**
 * Whether netemu has begun to shut down (issue 27, ADR 0090). An action over many nodes (start all, stop
 * all) takes no further node once it has: a shutdown must not wait for a start of hundreds of nodes, nor
 * race it, starting processes it would then have to stop.
 */
@injectable()
export class ShutdownSignal {
  private began = false;

  begin(): void {
    this.began = true;
  }

  get begun(): boolean {
    return this.began;
  }
}
