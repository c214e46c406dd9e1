/** A project whose latest change is in memory but not in its file, because writing the file fails. */
export interface UnwrittenProject {
  readonly projectId: string;
  /** The file being written (undefined when the project was deleted and its old file cannot be removed). */
  readonly file: string | undefined;
  /** The error code of the latest failed write (ENOSPC, EACCES, EROFS, ...). */
  readonly code: string;
  /** When the first failed write of this episode happened. */
  readonly since: Date;
  readonly failedWrites: number;
}

/**
 * How far the disk is behind memory (ADR 0057): the store of project files retries a failed write
 * until it succeeds, and says meanwhile which projects are unwritten. Read by the readiness route and
 * the metrics.
 */
export interface ProjectWrites {
  unwritten(): readonly UnwrittenProject[];
  /** Failed writes since start, by error code. */
  failedWrites(): ReadonlyMap<string, number>;
}

/** Projects kept in memory only (the embedding default): nothing is ever behind. */
export const NOTHING_TO_WRITE: ProjectWrites = { unwritten: () => [], failedWrites: () => new Map() };
