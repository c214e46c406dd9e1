import type { Lifecycle, Logger } from "../../application/ports/system.js";

/** What netemu stops when it shuts down, each by what it must do; those a core may not have are optional. */
export interface StoppingParts {
  readonly logger: Logger;
  /** Tells the use cases the shutdown began: a start all or stop all under way takes no further node (ADR 0090). */
  readonly beginStopping?: (() => void) | undefined;
  /** Stops taking requests, runs `meanwhile` while the requests in flight finish, then cuts what is left. */
  readonly stopServing: (meanwhile: () => Promise<void>) => Promise<void>;
  /** The compute files' uploads in flight (ADR 0060). */
  readonly uploads?: { close(): Promise<void> } | undefined;
  readonly notificationSockets: { close(): Promise<void> };
  /** Closes every project, switch and socket (the StopCore use case). */
  readonly stopCore: () => Promise<unknown>;
  /** The pcap-filter compiler's thread (ADR 0054). */
  readonly filterPrograms: { close(): Promise<void> };
  /** The impairments file's writes (ADR 0067). */
  readonly impairments?: { close(): Promise<void> } | undefined;
  /** The Linux hosts in network namespaces this netemu made (ADR 0083). */
  readonly namespaceHosts?: { close(): Promise<void> } | undefined;
  /** The controller's project files, written out before the stop (ADR 0057), and where they live. */
  readonly projectFiles?: { flush(): Promise<void> } | undefined;
  readonly projectsPath: string;
  /** The projects path's lock, released last (ADR 0058). */
  readonly projectsLock?: { release(): void } | undefined;
}

interface ShutdownSequence {
  /** Runs the sequence once; every later call gets the same promise. */
  readonly shutdown: () => Promise<void>;
  /** Resolves once the sequence has run to its end. */
  readonly stopped: Promise<void>;
  /** What POST /v2/shutdown asks: the answer goes out first, the stop runs on the next turn. */
  readonly lifecycle: Lifecycle;
}

/**
 * netemu's shutdown, in its order: the use cases hear it began (a start all under way takes no
 * further node, ADR 0090); the HTTP server stops taking requests; while those in flight
 * finish, the uploads stop (before their connections are cut, so their temporaries go too), the
 * notification websockets close, the core stops every project, switch and socket, the compiler
 * thread and the impairments file close, and the project files are written; the projects path's
 * lock is released last, so no other server takes it while they are written.
 */
export function shutdownSequence(parts: StoppingParts): ShutdownSequence {
  const { logger } = parts;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shuttingDown ??= (async () => {
      logger.info("shutting down");
      parts.beginStopping?.();
      await parts.stopServing(async () => {
        await parts.uploads?.close();
        await parts.notificationSockets.close();
        logger.info("shutdown: notification websockets closed");
        await parts.stopCore();
        // After the data plane let go of their TAPs: every namespace host this netemu made goes (ADR 0083).
        await parts.namespaceHosts?.close();
        await parts.filterPrograms.close();
        await parts.impairments?.close();
        if (parts.projectFiles !== undefined) {
          await parts.projectFiles.flush();
          logger.info("shutdown: project files written", { projectsPath: parts.projectsPath });
        }
        parts.projectsLock?.release();
      });
      logger.info("stopped");
      resolveStopped();
    })();
    return shuttingDown;
  };
  return { shutdown, stopped, lifecycle: { requestShutdown: () => void setImmediate(() => void shutdown()) } };
}
