import type * as t from "io-ts";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { DrawingSettings } from "../../../domain/topology/drawing.js";
import { LIST_DRAWINGS_REFUSALS } from "../../../application/use-cases/controller/list-drawings.js";
import { GET_DRAWING_REFUSALS } from "../../../application/use-cases/controller/get-drawing.js";
import { CREATE_DRAWING_REFUSALS } from "../../../application/use-cases/controller/create-drawing.js";
import { UPDATE_DRAWING_REFUSALS } from "../../../application/use-cases/controller/update-drawing.js";
import { DELETE_DRAWING_REFUSALS } from "../../../application/use-cases/controller/delete-drawing.js";
import type { ApiRouter } from "../api-router.js";
import { empty, json, list, route } from "../route.js";
import { DrawingBody } from "./codecs.js";
import { DrawingAnswer } from "./answers.js";
import { presentDrawing } from "./presenters.js";

const DRAWINGS = "/v2/projects/{project_id}/drawings";
const DRAWING = `${DRAWINGS}/{drawing_id}` as const;

/** A drawing's settings as a POST or PUT body gives them (its project_id is the path's, and so is a PUT's drawing_id). */
const settingsOf = (b: t.TypeOf<typeof DrawingBody>): DrawingSettings => ({ x: b.x, y: b.y, z: b.z, locked: b.locked, rotation: b.rotation, svg: b.svg });

/** The controller's drawing routes (GNS3 2.2's DrawingHandler), declared as values (ADR 0076, 0091). */
const CONTROLLER_DRAWING_ROUTES = {
  list: route({
    name: "controller.drawing.list",
    method: "GET",
    path: DRAWINGS,
    refusals: LIST_DRAWINGS_REFUSALS,
    run: (uc, { params }) => uc.listDrawings.execute({ projectId: params.project_id }),
    answer: list(200, DrawingAnswer, presentDrawing),
  }),
  create: route({
    name: "controller.drawing.create",
    method: "POST",
    path: DRAWINGS,
    body: DrawingBody,
    refusals: CREATE_DRAWING_REFUSALS,
    run: (uc, { params, body }) => uc.createDrawing.execute({ projectId: params.project_id, drawingId: body.drawing_id, ...settingsOf(body) }),
    answer: json(201, DrawingAnswer, presentDrawing),
  }),
  get: route({
    name: "controller.drawing.get",
    method: "GET",
    path: DRAWING,
    refusals: GET_DRAWING_REFUSALS,
    run: (uc, { params }) => uc.getDrawing.execute({ projectId: params.project_id, drawingId: params.drawing_id }),
    answer: json(200, DrawingAnswer, presentDrawing),
  }),
  // 201, as GNS3 2.2.59 answers a PUT of a drawing.
  update: route({
    name: "controller.drawing.update",
    method: "PUT",
    path: DRAWING,
    body: DrawingBody,
    refusals: UPDATE_DRAWING_REFUSALS,
    run: (uc, { params, body }) => uc.updateDrawing.execute({ projectId: params.project_id, drawingId: params.drawing_id, ...settingsOf(body) }),
    answer: json(201, DrawingAnswer, presentDrawing),
  }),
  delete: route({
    name: "controller.drawing.delete",
    method: "DELETE",
    path: DRAWING,
    refusals: DELETE_DRAWING_REFUSALS,
    run: (uc, { params }) => uc.deleteDrawing.execute({ projectId: params.project_id, drawingId: params.drawing_id }),
    answer: empty(204),
  }),
};

export function registerControllerDrawingRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(CONTROLLER_DRAWING_ROUTES)) api.addRoute(value, uc);
}
