import type * as E from "fp-ts/lib/Either.js";

export interface ProjectFileEntry {
  /** Relative to the project's directory, with "/" between parts. */
  readonly path: string;
  readonly md5sum: string;
}

/**
 * The files of a compute project (captures, and whatever a controller uploads), in its own
 * directory. Paths handed in are already checked to stay inside it (domain/topology/project-path).
 */
export interface ProjectFiles {
  /** Creates the project's directory if it is missing. */
  create(projectId: string): Promise<void>;
  /** Every regular file under the directory, with its MD5 (GNS3's list, for snapshots and exports). */
  list(projectId: string): Promise<readonly ProjectFileEntry[]>;
  /** The file's bytes; Left "missing" when there is no such regular file. */
  read(projectId: string, path: string): Promise<E.Either<"missing", AsyncIterable<Uint8Array>>>;
  /**
   * Writes (replaces) a file, creating its directories. Left "outside" when the path leads out of
   * the project through a symbolic link; else Left is the reason it could not.
   */
  write(projectId: string, path: string, content: AsyncIterable<Uint8Array>): Promise<E.Either<"outside" | { readonly failed: string }, void>>;
  /** Removes the project's directory and everything in it (a deleted project). */
  remove(projectId: string): Promise<void>;
}
