import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Refusal } from "../../errors.js";
import { GNS3_BUILTIN_TEMPLATES, NETEMU_TEMPLATES, isRunnable } from "../../../domain/topology/templates.js";
import { VPCS_BASE_SCRIPT } from "../../../domain/topology/node.js";
import { CREATE_NODE_REFUSALS, CreateNode } from "./create-node.js";
import { ControllerLookup } from "./controller-lookup.js";
import type { ControllerNodeView } from "./node-views.js";

/** What CreateNodeFromTemplate can answer instead of its result. */
export const CREATE_NODE_FROM_TEMPLATE_REFUSALS = [...CREATE_NODE_REFUSALS, "TemplateNotFound"] as const;
export type CreateNodeFromTemplateError = Refusal<typeof CREATE_NODE_FROM_TEMPLATE_REFUSALS>;

export interface CreateNodeFromTemplateInput {
  readonly projectId: string;
  readonly templateId: string;
  readonly x: number;
  readonly y: number;
  /** Absent or null: the template's name format, numbered within the project (Switch1, Switch2 ...). */
  readonly name?: string | null | undefined;
  /** A built-in template names no compute: the client picks one; absent is no compute at all, as in GNS3. */
  readonly computeId?: string | null | undefined;
}

/**
 * POST /v2/projects/{p}/templates/{t}: a node made from a built-in template, which is how gns3fy
 * and GNS3's GUI make nodes. GNS3's other built-ins (Cloud, NAT ...) are known but refused with
 * the same answer as a POST of such a node (ADR 0062).
 */
@injectable()
export class CreateNodeFromTemplate {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly createNode: CreateNode,
  ) {}

  async execute(input: CreateNodeFromTemplateInput): Promise<E.Either<CreateNodeFromTemplateError, ControllerNodeView>> {
    // GNS3's order of checks: the project, the template, then the compute.
    const project = await this.lookup.project(input.projectId);
    if (E.isLeft(project)) return project;
    // GNS3's built-ins (Cloud's too, refused below as GNS3's own), and netemu's own (ADR 0087).
    const template = [...GNS3_BUILTIN_TEMPLATES, ...NETEMU_TEMPLATES].find((t) => t.templateId === input.templateId);
    if (template === undefined) return E.left({ _tag: "TemplateNotFound", templateId: input.templateId, use: "node" });
    if (!isRunnable(template)) return E.left({ _tag: "NodeTypeNotSupported", nodeType: template.templateType });
    const named = input.name !== undefined && input.name !== null;
    return this.createNode.execute({
      projectId: input.projectId,
      // GNS3 names the absent compute as Python prints None: "Compute ID None doesn't exist".
      computeId: input.computeId ?? "None",
      nodeType: template.templateType,
      templateId: template.templateId,
      name: named ? input.name : template.defaultNameFormat,
      allocateName: !named,
      x: input.x,
      y: input.y,
      symbol: template.symbol,
      consoleType: template.consoleType,
      // GNS3 sends the content of the template's base script file as the node's startup script.
      ...(template.properties?.base_script_file === "vpcs_base_config.txt" && { startupScript: VPCS_BASE_SCRIPT }),
    });
  }
}
