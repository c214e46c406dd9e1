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

interface LoginNote {
  loginRefusedFrom?: string;
}

/**
 * Marks a request refused by the login check (401, or 429 while throttled): the throttle logs those
 * a few lines per address (ADR 0061), so its request line goes to debug, with the address.
 */
export function noteLoginRefused(ctx: Context, address: string): void {
  (ctx.state as LoginNote).loginRefusedFrom = address;
}

export function loginRefusedFrom(ctx: Context): string | undefined {
  return (ctx.state as LoginNote).loginRefusedFrom;
}
