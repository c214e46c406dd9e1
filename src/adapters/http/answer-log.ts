import type { Context } from "koa";

interface AnswerNote {
  answerMessage?: string;
}

/**
 * Notes why a request was refused, for the request log line: the answer's message, or a form of it
 * that leaves out what the client sent (a body may hold credentials).
 */
export function noteAnswerMessage(ctx: Context, message: string): void {
  (ctx.state as AnswerNote).answerMessage = message;
}

export function answerMessageOf(ctx: Context): string | undefined {
  return (ctx.state as AnswerNote).answerMessage;
}
