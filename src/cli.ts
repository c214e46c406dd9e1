#!/usr/bin/env node
import "reflect-metadata";
import type { Netemu } from "./adapters/composition-root.js";
import type { NetemuConfig } from "./adapters/config/server-config.js";
import type { PinoLogger } from "./adapters/system/pino-logger.js";
import { PACKAGE_VERSION } from "./adapters/system/package-version.js";

// Each command's modules are loaded when it runs: `netemu lab`, `impair` and `bpf` are clients, and loading
// the server they do not run (the composition root and all it wires) took most of their start (about a
// second on a busy 2-core machine; bench/lab-deploy.bench.ts, test/cli/client-commands-start.test.ts).

const HELP = `netemu ${PACKAGE_VERSION}: a GNS3 v2 compatible Ethernet switch and link-filter core

Usage:
  netemu serve [options]                       run the HTTP API (see netemu serve --help)
  netemu bpf 'EXPRESSION' CAPTURE.pcap          which frames of a capture an expression matches
  netemu bpf -f EXPRESSIONS_FILE CAPTURE.pcap   the same for one expression per line
  netemu impair --project P --node N --port PORT --out delay=50 ...
                                               netemu's impairments on a GNS3 port of a running netemu (netemu impair --help)
  netemu impair list | clear [--project P ...]  list or remove them
  netemu lab deploy FILE [--reconfigure]        a lab from a YAML file (docs/labs.md; netemu lab --help)
  netemu lab inspect | destroy NAME|FILE        its nodes, consoles, addresses, links and impairments; or remove it
  netemu lab save NAME > FILE                   a running project as a lab file
  netemu lab exec NODE -- COMMAND               a line typed into a VPCS console, its answer printed; or
                                                a command run inside a Linux host, with its exit code
  netemu --version
`;

async function serve(args: readonly string[]): Promise<number> {
  const { ConfigError, USAGE, resolveConfig } = await import("./adapters/config/server-config.js");
  const { LogFileUnwritable, openLogFile } = await import("./adapters/system/log-file.js");
  const { PinoLogger } = await import("./adapters/system/pino-logger.js");
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(USAGE);
    return 0;
  }
  let config;
  try {
    config = resolveConfig(args, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`netemu: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // With --log-file the log goes to the rotated file only; stdout stays for the process's own messages.
  let logFile;
  try {
    logFile = config.logFile === undefined ? undefined : openLogFile(config.logFile);
  } catch (err) {
    if (err instanceof LogFileUnwritable) {
      process.stderr.write(`netemu: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const logger = new PinoLogger(config.logLevel, logFile?.stream);
  if (config.logFile !== undefined) {
    const { path, maxSize, maxFiles } = config.logFile;
    process.stdout.write(`netemu: logging to ${path} (rotated at ${maxSize}, ${maxFiles} old files kept)\n`);
  }
  try {
    return await serveWith(config, logger);
  } finally {
    await logFile?.close();
  }
}

async function serveWith(config: NetemuConfig, logger: PinoLogger): Promise<number> {
  const { createNetemu } = await import("./adapters/composition-root.js");
  const { exposureWarning } = await import("./adapters/config/server-config.js");
  const { CorruptSettingsFile, FileSettingsStore, UnusableConfigDirectory } = await import("./adapters/persistence/file-settings-store.js");
  const { ProjectsPathLocked, ProjectsPathUnusable } = await import("./adapters/persistence/projects-path-lock.js");
  // The config directory must be writable and the settings file valid (never silently replaced),
  // or the server would start and fail on the first PUT /v2/iou_license or POST /v2/debug.
  const settingsStore = new FileSettingsStore(config.configDir);
  try {
    const removed = await settingsStore.prepare();
    if (removed.length > 0) logger.info("removed temporary settings files left by a writer that was killed", { removed });
  } catch (err) {
    if (err instanceof CorruptSettingsFile || err instanceof UnusableConfigDirectory) {
      logger.error(err.message, { path: err.path });
      process.stderr.write(`netemu: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // Before the core and its first log line: whoever reads a line may send SIGTERM the moment it does,
  // and the stop must then still be orderly (the projects-path lock removed, ADR 0058).
  let signalled = false;
  let netemu: Netemu | undefined;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      signalled = true;
      logger.info(`received ${signal}`);
      void netemu?.shutdown();
    });
  }
  try {
    netemu = createNetemu({
      settings: config,
      logLevel: config.logLevel,
      bodyLimitBytes: config.bodyLimitBytes,
      udpBufferBytes: config.udpBufferBytes,
      dataPlaneWorkers: config.dataPlaneWorkers,
      dataPlaneBalance: config.dataPlaneBalance,
      dataPlane: config.delayLimits,
      persistProjects: true,
      projectFiles: { maxFileBytes: config.maxProjectFileBytes, maxNodes: config.maxProjectNodes },
      uploadLimits: { maxUploadBytes: config.maxUploadBytes, maxProjectFilesBytes: config.maxProjectFilesBytes },
      overrides: { logger, settingsStore },
    });
  } catch (err) {
    // Two servers on one projects path would overwrite each other's files (ADR 0058).
    if (err instanceof ProjectsPathLocked || err instanceof ProjectsPathUnusable) {
      logger.error(err.message, { projectsPath: err.projectsPath });
      process.stderr.write(`netemu: ${err.message}\n`);
      return err instanceof ProjectsPathLocked ? 1 : 2;
    }
    throw err;
  }
  if (signalled) {
    await netemu.shutdown();
    return 0;
  }
  const warning = exposureWarning(config);
  if (warning !== undefined) logger.warn(warning);
  for (const notice of config.notices) logger.warn(notice);
  // GNS3's controller opens its auto_open projects at start: a lab running before a restart runs again.
  await netemu.useCases.openAutoOpenProjects.execute();
  if (signalled) {
    await netemu.stopped;
    return 0;
  }
  let url: string;
  try {
    ({ url } = await netemu.listen(config.port, config.host));
  } catch (err) {
    process.stderr.write(`netemu: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}\n`);
    return 1;
  }
  logger.info("netemu listening", { url, gns3Version: config.gns3Version, local: config.local, udpPorts: config.udpPortRange, dataPlaneWorkers: config.dataPlaneWorkers, datagramPath: netemu.datagramPath.kind });
  await netemu.stopped;
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serve(rest);
    case "bpf": {
      const { runBpfCommand } = await import("./adapters/cli/bpf-command.js");
      return runBpfCommand(rest, (line) => process.stdout.write(line + "\n"), (line) => process.stderr.write(line + "\n"));
    }
    case "impair": {
      const { runImpairCommand } = await import("./adapters/cli/impair-command.js");
      return runImpairCommand(rest, process.env, (line) => process.stdout.write(line + "\n"), (line) => process.stderr.write(line + "\n"));
    }
    case "lab": {
      const { runLabCommand } = await import("./adapters/cli/lab/lab-command.js");
      return runLabCommand(rest, process.env, (line) => process.stdout.write(line + "\n"), (line) => process.stderr.write(line + "\n"));
    }
    case "--version":
    case "-v":
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(HELP);
      return 0;
    default:
      process.stderr.write(`netemu: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`netemu: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
