import * as E from "fp-ts/lib/Either.js";
import type { InvalidConfiguration } from "../configuration/invalid-configuration.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";
import { readBoolean, readInteger, readString } from "../configuration/read.js";

/**
 * A drawing of a project (GNS3's text, shapes and images on the map): pure SVG, no part of the
 * emulation. Fields and defaults as GNS3 2.2's controller has them (`controller/drawing.py`).
 */
export interface Drawing {
  readonly drawingId: string;
  readonly projectId: string;
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly locked: boolean;
  /** Degrees, -359 to 360 as GNS3's schema allows. */
  readonly rotation: number;
  readonly svg: string;
}

/** What a client may set on a drawing; left out is GNS3's default on create, unchanged on update. */
export type DrawingSettings = Partial<Omit<Drawing, "drawingId" | "projectId">>;

export const DRAWING_DEFAULTS: Omit<Drawing, "drawingId" | "projectId"> = { x: 0, y: 0, z: 2, locked: false, rotation: 0, svg: "<svg></svg>" };

export function createDrawing(projectId: string, drawingId: string, settings: DrawingSettings): Drawing {
  return { drawingId, projectId, ...DRAWING_DEFAULTS, ...defined(settings) };
}

/** The drawing with the given settings applied, and whether its SVG changed (GNS3 leaves the SVG out of drawing.updated when not). */
export function updateDrawing(drawing: Drawing, settings: DrawingSettings): { readonly drawing: Drawing; readonly svgChanged: boolean } {
  const next = { ...drawing, ...defined(settings) };
  return { drawing: next, svgChanged: next.svg !== drawing.svg };
}

function defined(settings: DrawingSettings): DrawingSettings {
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as DrawingSettings;
}

/** Coordinates beyond this are no place on a map (GNS3 sets no bound; a safe integer keeps JSON exact). */
const COORDINATE_LIMIT = 1_000_000_000;

/**
 * The one check of a drawing's settings, at every door (HTTP, project files, the embedding API):
 * GNS3's schema (integers, rotation -359 to 360) and netemu's bound on the SVG's length. `at` prefixes
 * the field names (`topology.drawings[2].`).
 */
export function checkDrawingSettings(settings: DrawingSettings, at = ""): E.Either<InvalidConfiguration, DrawingSettings> {
  const checks: (() => E.Either<InvalidConfiguration, unknown>)[] = [];
  for (const key of ["x", "y", "z"] as const) {
    if (settings[key] !== undefined) checks.push(() => readInteger(settings[key], `${at}${key}`, -COORDINATE_LIMIT, COORDINATE_LIMIT));
  }
  if (settings.rotation !== undefined) checks.push(() => readInteger(settings.rotation, `${at}rotation`, -359, 360));
  if (settings.locked !== undefined) checks.push(() => readBoolean(settings.locked, `${at}locked`));
  if (settings.svg !== undefined) checks.push(() => readString(settings.svg, `${at}svg`, 0, CONFIGURATION_LIMITS.drawingSvgLength));
  for (const check of checks) {
    const read = check();
    if (E.isLeft(read)) return read;
  }
  return E.right(settings);
}
