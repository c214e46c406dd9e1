import { pino, type Logger as Pino, type DestinationStream } from "pino";
import type { LogLevel, Logger } from "../../application/ports/system.js";
import { StdoutLines } from "./stdout-lines.js";

/** Structured JSON logs, one object per line (ADR 0007). */
export class PinoLogger implements Logger {
  private readonly pino: Pino;

  constructor(level: LogLevel, destination?: DestinationStream) {
    this.pino = pino({ level, base: { name: "netemu" } }, destination ?? new StdoutLines());
  }

  debug(msg: string, fields: Record<string, unknown> = {}): void {
    this.pino.debug(fields, msg);
  }
  info(msg: string, fields: Record<string, unknown> = {}): void {
    this.pino.info(fields, msg);
  }
  warn(msg: string, fields: Record<string, unknown> = {}): void {
    this.pino.warn(fields, msg);
  }
  error(msg: string, fields: Record<string, unknown> = {}): void {
    this.pino.error(fields, msg);
  }
}
