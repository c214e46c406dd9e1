import * as E from "fp-ts/lib/Either.js";
import type { CaptureStartRefusal } from "../ports/packet-captures.js";
import type { CaptureSink, CaptureWriter } from "../ports/capture-sink.js";
import type { Logger } from "../ports/system.js";
import type { LiveNode, LiveNodes, LivePort, Tell } from "./live-node.js";

/** The captures of the live ports (ADR 0074): a writer per port, its file opened before it attaches. */
export class PortCaptures {
  /** Capture starts under way (their file being opened): close waits for them, so none leaves its file open. */
  private readonly starting = new Set<Promise<unknown>>();

  constructor(
    private readonly nodes: LiveNodes,
    private readonly captureSink: CaptureSink,
    private readonly logger: Logger,
    private readonly tell: Tell,
  ) {}

  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    const started = this.startCapture(nodeId, portNumber, filePath);
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started)).catch(() => undefined);
    return started;
  }

  /**
   * Opens the capture's file, then attaches its writer to the port as it is once the file is open
   * (ADR 0074): the port may have been closed meanwhile (its NIO removed, its node removed or handed
   * over, the data plane closed), or given another NIO. A port still there with no capture takes the
   * writer; otherwise the writer is closed here, so no file stays open, and the caller is told why.
   */
  private async startCapture(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    const port = this.nodes.get(nodeId)?.ports.get(portNumber);
    if (port === undefined) return E.left({ _tag: "PortNotAllocated", portNumber });
    if (port.capture !== undefined || port.captureOpening) return E.left({ _tag: "CaptureAlreadyActive", portNumber });
    let attached: { live: LiveNode; port: LivePort } | undefined;
    port.captureOpening = true;
    let opened: E.Either<string, CaptureWriter>;
    try {
      opened = await this.captureSink.open(filePath, (reason) => {
        const at = attached;
        if (at === undefined || at.port.capture?.path !== filePath) return;
        this.tell({ kind: "capture_failed", node: at.live.node, portNumber, filePath, reason }, "capture stopped: its file cannot be written", { port: portNumber, filePath, reason });
        void at.port.closeCapture();
      });
    } finally {
      port.captureOpening = false;
    }
    if (E.isLeft(opened)) return E.left({ _tag: "CaptureFileUnwritable", filePath, reason: opened.left });
    const live = this.nodes.get(nodeId);
    const now = live?.ports.get(portNumber);
    if (live === undefined || now === undefined || now.capture !== undefined || now.captureOpening) {
      await opened.right.close();
      this.logger.info("a capture's port was closed or taken while its file was opened: the file is closed", { nodeId, port: portNumber, filePath });
      return E.left(now === undefined ? { _tag: "PortNotAllocated", portNumber } : { _tag: "CaptureAlreadyActive", portNumber });
    }
    now.capture = { writer: opened.right, path: filePath };
    attached = { live, port: now };
    return E.right(undefined);
  }

  async stop(nodeId: string, portNumber: number): Promise<void> {
    const port = this.nodes.get(nodeId)?.ports.get(portNumber);
    if (port !== undefined) await port.closeCapture();
  }

  fileOf(nodeId: string, portNumber: number): string | undefined {
    return this.nodes.get(nodeId)?.ports.get(portNumber)?.capture?.path;
  }

  /** Once every start under way has ended: a start still opening its file finds its port gone and closes the file. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.starting]);
  }
}
