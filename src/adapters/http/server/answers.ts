import { Uuid } from "../compute/codecs.js";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonObject, jsonString, nullable } from "../schema.js";

/** `GET /v2/version`: GNS3's version and whether the server runs in local mode. */
export const VersionAnswer = jsonClosedObject("Version", { local: jsonBoolean, version: jsonString() }, {});

/** `POST /v2/version`: the client's version, when it is the server's. */
export const VersionCheckedAnswer = jsonClosedObject("VersionChecked", { version: jsonString() }, {});

/** `GET` and `PUT /v2/iou_license`: the settings as stored. */
export const IouLicenseAnswer = jsonClosedObject("IouLicenseSettings", { iourc_content: jsonString(), license_check: jsonBoolean }, {});

/**
 * Where a direction's schedule is now (ADR 0102): the active step (an index of the schedule's steps; a
 * windows schedule's steps are its base and its windows in turn), its filters, when the schedule
 * started (null while it waits for its first frame) and when the next step begins (null: never). An
 * impairment's `schedule_{in,out}_now`, and a controller link end's `schedule_now` in a GET of its link.
 */
export const ScheduleNowAnswer = jsonClosedObject(
  "ScheduleNow",
  { step: jsonInteger({ minimum: 0 }), filters: jsonObject, started_at: nullable(jsonString()), next_step_at: nullable(jsonString()), next_step_in: nullable(jsonNumber) },
  {},
);

/**
 * An impairment as netemu's routes answer it (ADR 0067): the port by ids and by the names the GUI
 * showed, each direction's filters (typed in the document as every `filters_in`/`filters_out` is).
 */
export const ImpairmentAnswer = jsonClosedObject(
  "PortImpairment",
  {
    filters_in: jsonObject,
    filters_out: jsonObject,
    node_id: Uuid,
    node_name: jsonString(),
    port_name: jsonString(),
    port_number: jsonInteger(),
    project_id: Uuid,
    project_name: jsonString(),
  },
  // A scheduled direction (ADR 0102): the schedule as set, and where it is now.
  { schedule_in: jsonObject, schedule_out: jsonObject, schedule_in_now: ScheduleNowAnswer, schedule_out_now: ScheduleNowAnswer },
);

/** A project whose latest change is in memory only (ADR 0057). */
const UnwrittenProjectAnswer = jsonClosedObject(
  "UnwrittenProject",
  { project_id: jsonString(), file: nullable(jsonString()), code: jsonString(), since: jsonString(), failed_writes: jsonInteger() },
  {},
);

/** A data-plane worker whose nodes forward nothing (ADR 0073). */
const DarkWorkerAnswer = jsonClosedObject(
  "DarkWorker",
  {
    worker: jsonInteger(),
    state: jsonEnum(["restarting", "given_up", "running"] as const),
    reason: jsonString(),
    exit_code: jsonInteger(),
    since: jsonString(),
    deaths: jsonInteger(),
    next_attempt: nullable(jsonString()),
    nodes: jsonArray(jsonClosedObject("DarkNode", { node_id: jsonString(), project_id: jsonString(), name: jsonString(), frames_per_second: nullable(jsonNumber) }, {})),
  },
  {},
);

const readiness = { ready: jsonBoolean, unwritten_projects: jsonArray(UnwrittenProjectAnswer), dark_workers: jsonArray(DarkWorkerAnswer) };

/** `GET /v2/netemu/ready` while ready: 200. */
export const ReadyAnswer = jsonClosedObject("Readiness", readiness, {});

/** `GET /v2/netemu/ready` while not: 503, a GNS3 error body (message, status) with the same report, for clients that read only those. */
export const NotReadyAnswer = jsonClosedObject("NotReady", { message: jsonString(), status: jsonInteger(), ...readiness }, {});

/** `POST /v2/netemu/data-plane/restart`: the workers started again, and what is still dark. */
export const DataPlaneBroughtBackAnswer = jsonClosedObject("DataPlaneBroughtBack", { restarted_workers: jsonArray(jsonInteger()), dark_workers: jsonArray(DarkWorkerAnswer) }, {});
