import type { Answer, SingleAnswer } from "../route.js";
import { type JsonSchema, toJsonSchema } from "./json-schema.js";

/** A route's success answer as the document says it: its status, and its body's schema when it is JSON. */
export interface DescribedAnswer {
  readonly status: number;
  /** The JSON body; none for an answer without a body or a stream. */
  readonly schema?: JsonSchema;
  /** A body of another content type (a capture stream). */
  readonly contentType?: string;
}

/** What a route declared as a value answers, derived from its answer codec (ADR 0076): its first status when it has several. */
export function describeAnswer(answer: Answer<unknown>): DescribedAnswer {
  return describeAnswers(answer)[0] as DescribedAnswer;
}

/** Every status a route declared as a value answers with on success, each with its body (ADR 0080: a choice has several). */
export function describeAnswers(answer: Answer<unknown>): readonly DescribedAnswer[] {
  return answer.kind === "choice" ? Object.values(answer.answers).map(describeOne) : [describeOne(answer)];
}

function describeOne(answer: SingleAnswer<unknown>): DescribedAnswer {
  switch (answer.kind) {
    case "json":
      return { status: answer.status, schema: toJsonSchema(answer.codec) };
    case "list":
      return { status: answer.status, schema: { type: "array", items: toJsonSchema(answer.codec) } };
    case "empty":
      return { status: answer.status };
    case "raw":
      return { status: answer.status, contentType: answer.contentType };
  }
}
