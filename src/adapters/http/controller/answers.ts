import * as t from "io-ts";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonString, nullable } from "../schema.js";
import { Uuid } from "../compute/codecs.js";

/**
 * What the controller's routes answer, as codecs (ADR 0076): the presenters return their types and
 * the OpenAPI document derives its schemas from them. Closed: GNS3 2.2's keys, exactly.
 */
const integer = jsonInteger();
const string = jsonString();

export const ProjectAnswer = jsonClosedObject(
  "Project",
  {
    auto_close: jsonBoolean,
    auto_open: jsonBoolean,
    auto_start: jsonBoolean,
    drawing_grid_size: integer,
    filename: string,
    grid_size: integer,
    name: string,
    path: string,
    project_id: Uuid,
    scene_height: integer,
    scene_width: integer,
    show_grid: jsonBoolean,
    show_interface_labels: jsonBoolean,
    show_layers: jsonBoolean,
    snap_to_grid: jsonBoolean,
    status: jsonEnum(["opened", "closed"] as const),
    /** As the client gave it: any JSON (GNS3 keeps it for the client). */
    supplier: t.unknown,
    variables: t.unknown,
    zoom: integer,
  },
  {},
);

/** A `.gns3` file (or a directory) netemu left out at start, and why (netemu's own, ADR 0085). */
export const SkippedTopologyAnswer = jsonClosedObject("SkippedTopologyFile", { path: string, reason: string }, {});

export const ProjectStatsAnswer = jsonClosedObject("ProjectStats", { drawings: integer, links: integer, nodes: integer, snapshots: integer }, {});

export const ComputeAnswer = jsonClosedObject(
  "Compute",
  {
    capabilities: jsonClosedObject("Capabilities", { node_types: jsonArray(string), platform: string, version: string }, {}),
    compute_id: string,
    connected: jsonBoolean,
    cpu_usage_percent: jsonNumber,
    host: string,
    last_error: t.null,
    memory_usage_percent: jsonNumber,
    name: string,
    port: integer,
    protocol: t.literal("http"),
    user: nullable(string),
  },
  {},
);
