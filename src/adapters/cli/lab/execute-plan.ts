import * as E from "fp-ts/lib/Either.js";
import { renderSchedule } from "../../../domain/filters/schedule.js";
import { renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { NODE_TYPE_OF, propertiesOf } from "../../../application/labs/gns3-nodes.js";
import type { LabLink, LabNode } from "../../../application/labs/lab.js";
import type { LabOperation } from "../../../application/labs/plan-deploy.js";
import type { LabApi, LabApiFailure } from "./lab-api.js";

/** A lab operation the server refused, with the operation (the steps before it were made). */
interface StepFailed {
  readonly _tag: "StepFailed";
  readonly step: number;
  readonly of: number;
  readonly failure: LabApiFailure;
}

function nodeBody(node: LabNode, position: { x: number; y: number } | undefined): Record<string, unknown> {
  const { x, y } = position ?? { x: node.x, y: node.y };
  return {
    name: node.name,
    node_type: NODE_TYPE_OF[node.kind],
    compute_id: "local",
    properties: propertiesOf(node),
    ...(x === undefined ? {} : { x }),
    ...(y === undefined ? {} : { y }),
  };
}

function linkEnds(link: LabLink, ids: ReadonlyMap<string, string>): Record<string, unknown>[] {
  return link.ends.map((end, i) => {
    // A schedule of what this end sends (ADR 0102) instead of its fixed filters; armed as the link is made or updated.
    const schedule = i === 0 ? link.aToBSchedule : link.bToASchedule;
    return {
      node_id: ids.get(end.node),
      adapter_number: 0,
      port_number: end.port,
      // netemu's one-way impairments on what this end sends (ADR 0051); {} clears them on an update.
      ...(schedule === undefined ? { filters: renderFilterSettings(i === 0 ? link.aToB : link.bToA) } : { schedule: renderSchedule(schedule) }),
    };
  });
}

/**
 * Makes a deploy plan's steps, in order, through the controller API; stops at the first refusal, whose
 * step is named. Node names become ids as the nodes are made (`ids` starts with the project's own).
 */
export async function executePlan(
  api: LabApi,
  plan: readonly LabOperation[],
  projectId: string | undefined,
  ids: Map<string, string>,
): Promise<E.Either<StepFailed, string>> {
  let project = projectId ?? "";
  for (const [i, step] of plan.entries()) {
    const done = await run(api, step, project, ids);
    if (E.isLeft(done)) return E.left({ _tag: "StepFailed", step: i + 1, of: plan.length, failure: done.left });
    if (step.op === "createProject") project = done.right ?? project;
  }
  return E.right(project);
}

async function run(api: LabApi, step: LabOperation, projectId: string, ids: Map<string, string>): Promise<E.Either<LabApiFailure, string | undefined>> {
  const none = (a: E.Either<LabApiFailure, void>): E.Either<LabApiFailure, undefined> => (E.isLeft(a) ? a : E.right(undefined));
  switch (step.op) {
    case "createProject": {
      const made = await api.createProject(step.name);
      return E.isLeft(made) ? made : E.right(made.right.projectId);
    }
    case "deleteLink":
      return none(await api.deleteLink(projectId, step.linkId));
    case "deleteNode": {
      const nodeId = ids.get(step.name) ?? "";
      ids.delete(step.name);
      return none(await api.deleteNode(projectId, nodeId));
    }
    case "updateNode":
      return none(await api.updateNode(projectId, ids.get(step.node.name) ?? "", nodeBody(step.node, undefined)));
    case "createNode": {
      const made = await api.createNode(projectId, nodeBody(step.node, { x: step.x, y: step.y }));
      if (E.isLeft(made)) return made;
      ids.set(step.node.name, made.right.nodeId);
      return E.right(undefined);
    }
    case "createLink":
      return none(
        await api.createLink(projectId, {
          nodes: linkEnds(step.link, ids),
          filters: renderFilterSettings(step.link.filters),
          suspend: step.link.suspend,
          ...(step.link.style === undefined ? {} : { link_style: step.link.style }),
        }),
      );
    case "updateLink":
      return none(
        await api.updateLink(projectId, step.linkId, {
          nodes: linkEnds(step.link, ids),
          filters: renderFilterSettings(step.link.filters),
          suspend: step.link.suspend,
          ...(step.link.style === undefined ? {} : { link_style: step.link.style }),
        }),
      );
    case "startNodes":
      return none(await api.startNodes(projectId));
  }
}
