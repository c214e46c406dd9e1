import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Refusal } from "../../errors.js";
import { NETEMU_TEMPLATES, type RunnableTemplate } from "../../../domain/topology/templates.js";

/** What GetTemplate can answer instead of its result. */
export const GET_TEMPLATE_REFUSALS = ["TemplateNotFound"] as const;
export type GetTemplateError = Refusal<typeof GET_TEMPLATE_REFUSALS>;

/** GET /v2/templates/{template_id}: one of the templates ListTemplates lists. */
@injectable()
export class GetTemplate {
  execute({ templateId }: { readonly templateId: string }): E.Either<GetTemplateError, RunnableTemplate> {
    const template = NETEMU_TEMPLATES.find((t) => t.templateId === templateId);
    return template === undefined ? E.left({ _tag: "TemplateNotFound", templateId, use: "read" }) : E.right(template);
  }
}
