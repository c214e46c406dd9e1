import type * as E from "fp-ts/lib/Either.js";

export interface ProjectFileEntry {
  /** Relative to the project's directory, with "/" between parts. */
  readonly path: string;
  readonly md5sum: string;
}

/** How large one upload, and all the files of one compute project, may grow (bytes). */
export interface UploadLimits {
  readonly maxUploadBytes: number;
  readonly maxProjectFilesBytes: number;
}

/** Why a file was not written; nothing was created in the project. */
export type ProjectFileWriteRefusal =
  /** The path leads out of the project through a symbolic link. */
  | { readonly _tag: "outside" }
  /** A component of the path (`what: "name"`), or the whole path inside the project, is longer than the file system allows. */
  | { readonly _tag: "name-too-long"; readonly what: "name" | "path"; readonly name: string; readonly limit: number }
  /** The upload, or the project's files with it, would be over its cap. */
  | { readonly _tag: "too-large"; readonly what: "upload" | "project"; readonly limit: number }
  | { readonly _tag: "failed"; readonly reason: string };

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
   * Writes (replaces) a file whole or not at all, creating its directories only once the content has
   * arrived. `declaredBytes` (a Content-Length) over a cap is refused before anything is read.
   */
  write(projectId: string, path: string, content: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<E.Either<ProjectFileWriteRefusal, void>>;
  /** Removes the project's directory and everything in it (a deleted project). */
  remove(projectId: string): Promise<void>;
}
