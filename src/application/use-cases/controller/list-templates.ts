import { injectable } from "tsyringe";
import { NETEMU_TEMPLATES, type RunnableTemplate } from "../../../domain/topology/templates.js";

/** GET /v2/templates: the built-in templates of the node types netemu runs (ADR 0062). */
@injectable()
export class ListTemplates {
  execute(): readonly RunnableTemplate[] {
    return NETEMU_TEMPLATES;
  }
}
