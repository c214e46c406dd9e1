import * as E from "fp-ts/lib/Either.js";
import { mkdirSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync, accessSync, constants } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { SAVED_TRACES_FOLDER } from "../../../application/labs/lab-traces.js";

/** Why `netemu lab save --output FILE` wrote nothing: the expected failures of writing a saved lab. */
type SavedLabFilesFailure =
  /** FILE's folder is not there (save makes no folders above the lab file). */
  | { readonly _tag: "OutputFolderMissing"; readonly folder: string }
  /** FILE is a folder, or FILE, its folder or its traces folder cannot be written. */
  | { readonly _tag: "OutputNotWritable"; readonly path: string; readonly reason: string };

export function describeSavedLabFilesFailure(f: SavedLabFilesFailure): string {
  return f._tag === "OutputFolderMissing" ? `--output: the folder ${f.folder} does not exist; nothing written` : `--output: cannot write ${f.path}: ${f.reason}; nothing written`;
}

export interface SavedTrace {
  readonly name: string;
  readonly text: string;
}

const reasonOf = (e: unknown): string => (e as Error).message;

/**
 * Whether FILE can be written, checked before the server is asked for anything: its folder exists and
 * is writable, and FILE is not a folder.
 */
export function checkOutput(file: string): E.Either<SavedLabFilesFailure, void> {
  const path = resolve(file);
  const folder = dirname(path);
  try {
    if (!statSync(folder).isDirectory()) return E.left({ _tag: "OutputNotWritable", path: folder, reason: "not a folder" });
  } catch {
    return E.left({ _tag: "OutputFolderMissing", folder });
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch (e) {
    return E.left({ _tag: "OutputNotWritable", path: folder, reason: reasonOf(e) });
  }
  try {
    if (statSync(path).isDirectory()) return E.left({ _tag: "OutputNotWritable", path, reason: "it is a folder" });
  } catch {
    // Not there yet: it will be made.
  }
  return E.right(undefined);
}

/**
 * Writes the traces to `traces/<name>` beside FILE, then FILE: each written whole to a temporary file
 * first and renamed into place only once all of them are written, so a failure (a full disk, a `traces`
 * that is a file) leaves no half-written trace and no lab file naming traces that are not beside it.
 */
export function writeSavedLab(file: string, labText: string, traces: readonly SavedTrace[]): E.Either<SavedLabFilesFailure, void> {
  const checked = checkOutput(file);
  if (E.isLeft(checked)) return checked;
  const path = resolve(file);
  const folder = dirname(path);
  const tracesFolder = join(folder, SAVED_TRACES_FOLDER);
  let madeFolder = false;
  if (traces.length > 0) {
    try {
      madeFolder = mkdirSync(tracesFolder, { recursive: true }) !== undefined;
      if (!statSync(tracesFolder).isDirectory()) return E.left({ _tag: "OutputNotWritable", path: tracesFolder, reason: "not a folder" });
    } catch (e) {
      return E.left({ _tag: "OutputNotWritable", path: tracesFolder, reason: reasonOf(e) });
    }
  }
  // A trace file that is a folder would fail its rename after others were renamed: refused before any is written.
  for (const t of traces) {
    const target = join(tracesFolder, t.name);
    try {
      if (statSync(target).isDirectory()) return E.left({ _tag: "OutputNotWritable", path: target, reason: "it is a folder" });
    } catch {
      // Not there yet: it will be made.
    }
  }
  const temporary = (target: string): string => join(dirname(target), `.${basename(target)}.${process.pid}.saving`);
  const files = [...traces.map((t) => ({ target: join(tracesFolder, t.name), text: t.text })), { target: path, text: labText }];
  const written: string[] = [];
  const undo = (): void => {
    for (const t of written) {
      try {
        unlinkSync(t);
      } catch {
        // Gone already.
      }
    }
    if (madeFolder) {
      try {
        rmdirSync(tracesFolder);
      } catch {
        // Not empty: it holds what was there before.
      }
    }
  };
  for (const f of files) {
    const t = temporary(f.target);
    try {
      writeFileSync(t, f.text);
      written.push(t);
    } catch (e) {
      undo();
      return E.left({ _tag: "OutputNotWritable", path: f.target, reason: reasonOf(e) });
    }
  }
  // Traces first, the lab file last: a lab file on disk always has its traces beside it.
  for (const [i, f] of files.entries()) {
    try {
      renameSync(written[i] as string, f.target);
    } catch (e) {
      written.splice(0, i);
      undo();
      return E.left({ _tag: "OutputNotWritable", path: f.target, reason: reasonOf(e) });
    }
  }
  return E.right(undefined);
}
