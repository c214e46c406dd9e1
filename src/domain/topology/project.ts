import type { Drawing } from "./drawing.js";

export type ProjectStatus = "opened" | "closed";

/** A controller project: the GNS3 fields clients read, with GNS3's defaults. */
export interface Project {
  readonly projectId: string;
  readonly name: string;
  readonly status: ProjectStatus;
  readonly path: string;
  readonly filename: string;
  readonly autoClose: boolean;
  readonly autoOpen: boolean;
  readonly autoStart: boolean;
  readonly sceneWidth: number;
  readonly sceneHeight: number;
  readonly zoom: number;
  readonly showLayers: boolean;
  readonly snapToGrid: boolean;
  readonly showGrid: boolean;
  readonly gridSize: number;
  readonly drawingGridSize: number;
  readonly showInterfaceLabels: boolean;
  readonly supplier: unknown;
  readonly variables: unknown;
  /**
   * Node types of a project file (written by GNS3) that netemu does not run, e.g. "qemu", "vpcs":
   * such a project is listed but cannot be opened here, and its file is never rewritten.
   */
  readonly unsupportedNodeTypes: readonly string[];
  /** Its drawings, in the order they were made: decoration kept with the project and in its file (ADR 0091). */
  readonly drawings: readonly Drawing[];
}

export type ProjectOptions = Partial<Omit<Project, "projectId" | "name" | "status" | "path" | "filename" | "unsupportedNodeTypes" | "drawings">>;

export function createProject(projectId: string, name: string, path: string, options: ProjectOptions = {}): Project {
  return {
    projectId,
    name,
    status: "opened",
    path,
    filename: `${name}.gns3`,
    autoClose: true,
    autoOpen: false,
    autoStart: false,
    sceneWidth: 2000,
    sceneHeight: 1000,
    zoom: 100,
    showLayers: false,
    snapToGrid: false,
    showGrid: false,
    gridSize: 75,
    drawingGridSize: 25,
    showInterfaceLabels: false,
    supplier: null,
    variables: null,
    ...options,
    unsupportedNodeTypes: [],
    drawings: [],
  };
}

/** A project variable as GNS3's schema has it: a name, and a value that may be left out. */
export interface ProjectVariable {
  readonly name: string;
  readonly value?: string;
}

/** A compute-side project: only what the compute API exposes. */
export interface ComputeProject {
  readonly projectId: string;
  readonly name: string;
  readonly variables: unknown;
}
