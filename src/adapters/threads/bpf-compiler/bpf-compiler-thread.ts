import { parentPort } from "node:worker_threads";
import { compileProgram } from "../../../domain/bpf/index.js";
import type { CompileReply, CompileRequest } from "./threaded-bpf-compiler.js";

/** The compiler thread (ADR 0054): compiles the lines it is sent, one request after the other. */
const port = parentPort;
if (port === null) throw new Error("bpf-compiler-thread.js runs as a worker thread");
port.on("message", (m: CompileRequest) => {
  let reply: CompileReply;
  try {
    reply = { id: m.id, value: compileProgram(m.lines) };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.postMessage(reply);
});
