import { writeSync } from "node:fs";

/**
 * Log lines to standard output that a reader going away cannot hang: with `netemu serve | head -1`
 * or a crashed pino-pretty, each write fails with EPIPE, and pino's own stdout stream retries such a
 * write every 100 ms for ever when it flushes at exit. Here the first failure ends logging to stdout
 * (the lines are dropped: nobody reads them), and a pipe too full to take a line right now (EAGAIN)
 * costs that line, never a wait.
 */
export class StdoutLines {
  private closed = false;

  constructor(private readonly fd = 1) {}

  write(line: string): void {
    if (this.closed) return;
    try {
      writeSync(this.fd, line);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") this.closed = true;
    }
  }
}
