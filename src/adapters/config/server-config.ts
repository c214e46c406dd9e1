import { readFileSync, statSync } from "node:fs";
import { availableParallelism, homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { ServerSettings } from "../../application/ports/server-settings.js";
import type { LogLevel } from "../../application/ports/system.js";
import type { DataPlaneOptions } from "../../application/dataplane/switch-data-plane.js";
import { IniSyntaxError, parseIni } from "./ini.js";
import { SERVE_DEFAULTS } from "../shared/serve-address.js";
import { CONFIGURATION_LIMITS } from "../../domain/configuration/limits.js";
import { IN_PROCESS_LINKS_VALUES, inProcessLinksSetting } from "../shared/in-process-links-setting.js";
import { udpCoalesceSetting } from "../shared/udp-coalesce-setting.js";
import { NETEMU_FILTER_CATALOGUE } from "../../domain/filters/catalogue.js";

export interface NetemuConfig extends ServerSettings {
  /** What the operator should know about how the settings were chosen, logged at start-up. */
  readonly notices: readonly string[];
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  readonly udpBufferBytes: number;
  readonly dataPlaneWorkers: number;
  /** Busy nodes move between the data-plane workers by measured load (ADR 0069); off: by hash of their id. */
  readonly dataPlaneBalance: boolean;
  /** Project files larger, or with more nodes, are skipped at start with the reason (ADR 0057). */
  readonly maxProjectFileBytes: number;
  readonly maxProjectNodes: number;
  /** Caps of the compute files API (ADR 0060): one upload, and all the files of one compute project. */
  readonly maxUploadBytes: number;
  readonly maxProjectFilesBytes: number;
  /**
   * What the delays of one port, and of every port of one data-plane thread, may hold (ADR 0072): the
   * bytes given, and a frame per KiB of them, as the data plane's defaults are.
   */
  readonly delayLimits: Pick<DataPlaneOptions, "heldBytesPerPort" | "heldFramesPerPort" | "heldBytesPerWorker" | "heldFramesPerWorker">;
  /** The log file and its rotation, when the log goes to a file rather than stdout (ADR 0044). */
  readonly logFile: { readonly path: string; readonly maxSize: string; readonly maxFiles: number } | undefined;
}

export class ConfigError extends Error {}

export const DEFAULTS = {
  host: SERVE_DEFAULTS.host as string,
  port: SERVE_DEFAULTS.port as number,
  local: true,
  gns3Version: "2.2.59",
  gns3V3Version: "3.0.6",
  udpStart: 20000,
  udpEnd: 30000,
  consoleStart: 5000,
  consoleEnd: 10000,
  logLevel: "info" as LogLevel,
  bodyLimitBytes: 1024 * 1024,
  udpBufferBytes: 4 * 1024 * 1024,
  /** One worker per core but one, which the API keeps; at least one, at most eight (ADR 0041). */
  dataPlaneWorkers: Math.max(1, Math.min(8, availableParallelism() - 1)),
  /** Busy nodes placed by load (ADR 0069): a move carries the node's state and, on the batched path, loses no frame. */
  dataPlaneBalance: true,
  logMaxSize: "10M",
  logMaxFiles: 5,
  /** As the project store's own default (adapters do not import each other). */
  maxProjectFileBytes: 16 * 1024 * 1024,
  maxProjectNodes: CONFIGURATION_LIMITS.nodesPerProject,
  maxUploadBytes: 1024 ** 3,
  maxProjectFilesBytes: 10 * 1024 ** 3,
  /** As the data plane's own defaults (adapters do not import the application's values here). */
  delayLimitPortBytes: 64 * 1024 ** 2,
  delayLimitWorkerBytes: 256 * 1024 ** 2,
};

/** Each setting: its flag, environment variable and `[Server]` key in gns3_server.conf. */
export const SETTINGS = {
  host: { flag: "host", env: "NETEMU_HOST", ini: "host" },
  port: { flag: "port", env: "NETEMU_PORT", ini: "port" },
  local: { flag: "local", env: "NETEMU_LOCAL", ini: "local" },
  gns3Version: { flag: "gns3-version", env: "NETEMU_GNS3_VERSION", ini: "gns3_version" },
  udpStart: { flag: "udp-start-port", env: "NETEMU_UDP_START_PORT", ini: "udp_start_port_range" },
  udpEnd: { flag: "udp-end-port", env: "NETEMU_UDP_END_PORT", ini: "udp_end_port_range" },
  consoleStart: { flag: "console-start-port", env: "NETEMU_CONSOLE_START_PORT", ini: "console_start_port_range" },
  consoleEnd: { flag: "console-end-port", env: "NETEMU_CONSOLE_END_PORT", ini: "console_end_port_range" },
  projectsPath: { flag: "projects-path", env: "NETEMU_PROJECTS_PATH", ini: "projects_path" },
  auth: { flag: "auth", env: "NETEMU_AUTH", ini: "auth" },
  user: { flag: "user", env: "NETEMU_USER", ini: "user" },
  password: { flag: "password", env: "NETEMU_PASSWORD", ini: "password" },
  logLevel: { flag: "log-level", env: "NETEMU_LOG_LEVEL", ini: "log_level" },
  bodyLimit: { flag: "body-limit", env: "NETEMU_BODY_LIMIT", ini: "body_limit" },
  udpBuffer: { flag: "udp-buffer", env: "NETEMU_UDP_BUFFER", ini: "udp_buffer" },
  dataPlaneWorkers: { flag: "dataplane-workers", env: "NETEMU_DATAPLANE_WORKERS", ini: "dataplane_workers" },
  dataPlaneBalance: { flag: "dataplane-balance", env: "NETEMU_DATAPLANE_BALANCE", ini: "dataplane_balance" },
  extendedFilters: { flag: "extended-filters", env: "NETEMU_EXTENDED_FILTERS", ini: "extended_filters" },
  logFile: { flag: "log-file", env: "NETEMU_LOG_FILE", ini: "log_file" },
  logMaxSize: { flag: "log-max-size", env: "NETEMU_LOG_MAX_SIZE", ini: "log_max_size" },
  logMaxFiles: { flag: "log-max-files", env: "NETEMU_LOG_MAX_FILES", ini: "log_max_files" },
  maxProjectFileSize: { flag: "max-project-file-size", env: "NETEMU_MAX_PROJECT_FILE_SIZE", ini: "max_project_file_size" },
  maxProjectNodes: { flag: "max-project-nodes", env: "NETEMU_MAX_PROJECT_NODES", ini: "max_project_nodes" },
  maxUploadSize: { flag: "max-upload-size", env: "NETEMU_MAX_UPLOAD_SIZE", ini: "max_upload_size" },
  maxProjectFilesSize: { flag: "max-project-files-size", env: "NETEMU_MAX_PROJECT_FILES_SIZE", ini: "max_project_files_size" },
  delayLimitPort: { flag: "delay-limit-port", env: "NETEMU_DELAY_LIMIT_PORT", ini: "delay_limit_port" },
  delayLimitWorker: { flag: "delay-limit-worker", env: "NETEMU_DELAY_LIMIT_WORKER", ini: "delay_limit_worker" },
  // The VPCS program host nodes run (ADR 0081); GNS3 reads it from [VPCS], which netemu reads too.
  vpcsPath: { flag: "vpcs-path", env: "NETEMU_VPCS_PATH", ini: "vpcs_path" },
  // The /v3/compute slice (ADR 0066).
  gns3V3Version: { flag: "gns3-v3-version", env: "NETEMU_GNS3_V3_VERSION", ini: "gns3_v3_version" },
  v3NoAuth: { flag: "v3-no-auth", env: "NETEMU_V3_NO_AUTH", ini: "v3_no_auth" },
  // The compiled GNS3 web UI the user supplies (GPL, never shipped with netemu; ADR 0092).
  webUi: { flag: "web-ui", env: "NETEMU_WEB_UI", ini: "web_ui" },
} as const;
type SettingName = keyof typeof SETTINGS;

/** Every flag `netemu serve` takes; USAGE names each (test/unit/adapters/serve-help.test.ts). */
export const SERVE_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  local: { type: "boolean" },
  "no-local": { type: "boolean" },
  "gns3-version": { type: "string" },
  "udp-start-port": { type: "string" },
  "vpcs-path": { type: "string" },
  "udp-end-port": { type: "string" },
  "console-start-port": { type: "string" },
  "console-end-port": { type: "string" },
  "config-dir": { type: "string" },
  config: { type: "string" },
  "projects-path": { type: "string" },
  auth: { type: "boolean" },
  "no-auth": { type: "boolean" },
  user: { type: "string" },
  password: { type: "string" },
  "log-level": { type: "string" },
  "body-limit": { type: "string" },
  "udp-buffer": { type: "string" },
  "dataplane-workers": { type: "string" },
  "extended-filters": { type: "boolean" },
  "no-extended-filters": { type: "boolean" },
  "dataplane-balance": { type: "boolean" },
  "no-dataplane-balance": { type: "boolean" },
  "log-file": { type: "string" },
  "log-max-size": { type: "string" },
  "log-max-files": { type: "string" },
  "max-project-file-size": { type: "string" },
  "max-project-nodes": { type: "string" },
  "max-upload-size": { type: "string" },
  "max-project-files-size": { type: "string" },
  "delay-limit-port": { type: "string" },
  "delay-limit-worker": { type: "string" },
  "gns3-v3-version": { type: "string" },
  "v3-no-auth": { type: "boolean" },
  "web-ui": { type: "string" },
} as const;

/** Words wrapped to the help's width, continuation lines under the option texts. */
function indented(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && 26 + line.length + 1 + word.length > 110) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(26)}`);
}

export const USAGE = `Usage: netemu serve [options]

Options (flag > environment > [Server] in <config dir>/gns3_server.conf > default):
  --host ADDRESS          listen address (NETEMU_HOST, default ${DEFAULTS.host})
  --port N                HTTP port (NETEMU_PORT, default ${DEFAULTS.port})
  --local / --no-local    local mode: allows /v2/debug and /v2/shutdown (NETEMU_LOCAL, default on, but off
                          when serving on a non-loopback address without --auth)
  --gns3-version V        GNS3 version reported by /v2/version (NETEMU_GNS3_VERSION, default ${DEFAULTS.gns3Version})
  --udp-start-port N      first UDP port for links (NETEMU_UDP_START_PORT, default ${DEFAULTS.udpStart})
  --udp-end-port N        last UDP port for links (NETEMU_UDP_END_PORT, default ${DEFAULTS.udpEnd})
  --console-start-port N  first TCP port for host consoles (NETEMU_CONSOLE_START_PORT, default ${DEFAULTS.consoleStart})
  --console-end-port N    last TCP port for host consoles (NETEMU_CONSOLE_END_PORT, default ${DEFAULTS.consoleEnd})
  --vpcs-path PROGRAM     the VPCS (0.5b2 or later) that VPCS nodes run (NETEMU_VPCS_PATH, vpcs_path in [VPCS]
                          or [Server], default: vpcs in PATH)
  --config-dir DIR        settings and debug bundles, must be writable (NETEMU_CONFIG_DIR, default ~/.config/netemu)
  --config FILE           server config file (NETEMU_CONFIG, default <config dir>/gns3_server.conf)
  --projects-path DIR     where projects and captures go (NETEMU_PROJECTS_PATH, default <config dir>/projects);
                          one server per path: a second start on it is refused (its .netemu.lock)
  --auth / --no-auth      HTTP basic auth (NETEMU_AUTH, default off); an address with 10 failed logins
                          in a minute gets 429 with Retry-After (1 s, doubling up to 5 min)
  --user NAME, --password SECRET   credentials for --auth (NETEMU_USER, NETEMU_PASSWORD)
  --log-level LEVEL       fatal|error|warn|info|debug|trace|silent (NETEMU_LOG_LEVEL, default info)
  --log-file PATH         write the log to PATH, rotated by size, instead of stdout (NETEMU_LOG_FILE, default stdout)
  --log-max-size SIZE     rotate the log file at SIZE: digits and B, K, M or G (NETEMU_LOG_MAX_SIZE, default ${DEFAULTS.logMaxSize})
  --log-max-files N       rotated log files kept: PATH.1 (newest) to PATH.N (NETEMU_LOG_MAX_FILES, default ${DEFAULTS.logMaxFiles})
  --body-limit BYTES      largest request body (NETEMU_BODY_LIMIT, default ${DEFAULTS.bodyLimitBytes})
  --udp-buffer BYTES      socket receive/send buffer per NIO (NETEMU_UDP_BUFFER, default ${DEFAULTS.udpBufferBytes})
  --dataplane-workers N   worker threads running the switches and hubs, 0 = the main thread
                          (NETEMU_DATAPLANE_WORKERS, default ${DEFAULTS.dataPlaneWorkers}: the cores but one)
  --dataplane-balance / --no-dataplane-balance   move busy switches and hubs between the workers by
                          their measured frame rate, with their state; off: by a hash of their id
                          (NETEMU_DATAPLANE_BALANCE, default on; it acts with 2 workers or more)
  --delay-limit-port SIZE, --delay-limit-worker SIZE   what the delays of one port (both directions), and of
                          every port of one data-plane thread, may hold: bytes, or digits and K, M or G, and a
                          frame per KiB of it (NETEMU_DELAY_LIMIT_PORT, default 64M; NETEMU_DELAY_LIMIT_WORKER,
                          default 256M; at least 64K); a frame beyond is dropped, counted as delay_limit
  NETEMU_UDP_PATH=dgram   UDP NIOs on node:dgram even where the batched recvmmsg/sendmmsg addon was built;
                          the path in use is logged at start ("datagram path") and in /metrics (ADR 0068)
  NETEMU_UDP_GSO=off      the batched path sends every datagram on its own and takes no UDP GRO: by default
                          runs of equal-size frames leave as one UDP GSO message and another netemu's come
                          in as one GRO message, cut into their datagrams (ADR 0106)
  NETEMU_UDP_COALESCE_US=N   the batched path's receive coalescing, 1..1000 µs (default off): a socket whose
                          frames come closer together than N µs is drained every N µs instead of waking the
                          loop for each, which costs less CPU per frame and holds a frame up to N µs (ADR 0110)
  NETEMU_IN_PROCESS_LINKS=off   a link between two NIOs of one data-plane thread crosses the kernel (127.0.0.1)
                          instead of passing in memory (default on; logged at start, "in-process links", ADR 0105);
                          =threads: a link between two data-plane workers passes through shared memory too
                          (experimental: not cheaper than UDP yet on every machine, ADR 0111)
  --max-upload-size SIZE  largest file one upload to the compute files API may write: bytes, or digits and
                          K, M or G (NETEMU_MAX_UPLOAD_SIZE, default 1G); over it the answer is 413
  --max-project-files-size SIZE   most bytes the files of one compute project may hold
                          (NETEMU_MAX_PROJECT_FILES_SIZE, default 10G); an upload over it is answered 413
  --extended-filters / --no-extended-filters   available_filters also lists netemu's impairments after
                          GNS3's five (NETEMU_EXTENDED_FILTERS, default off):
                          ${indented(NETEMU_FILTER_CATALOGUE.map((d) => d.type).join(", "))}
  --max-project-file-size BYTES   larger .gns3 files are skipped at start, unread (NETEMU_MAX_PROJECT_FILE_SIZE, default ${DEFAULTS.maxProjectFileBytes})
  --max-project-nodes N   projects with more nodes are skipped at start (NETEMU_MAX_PROJECT_NODES, default and most ${DEFAULTS.maxProjectNodes})
  --gns3-v3-version V     GNS3 version /v3/compute reports; a stable 3.x controller demands its own
                          (NETEMU_GNS3_V3_VERSION, default ${DEFAULTS.gns3V3Version})
  --v3-no-auth            serve /v3/compute without credentials when --auth is off (NETEMU_V3_NO_AUTH, default off:
                          /v3/compute then answers 401; with --auth it checks --user and --password, as 3.x does)
  --web-ui DIR            serve the compiled GNS3 web UI 2.2 found in DIR (its index.html) at / and /static/web-ui/
                          (NETEMU_WEB_UI, web_ui in [Server], default none); it is GPL and not shipped with netemu
  -h, --help              this text
`;

function parseBool(name: string, value: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

function parseIntIn(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return Number(value);
}

const SIZE = /^(\d+)([KMG]?)$/;

/** A byte count, with an optional binary unit (K, M, G), between 1 and 2^50. */
function parseSize(name: string, value: string): number {
  const m = SIZE.exec(value.trim());
  const bytes = m === null ? NaN : Number(m[1]) * 1024 ** " KMG".indexOf(m[2] === "" ? " " : (m[2] as string));
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > 2 ** 50) {
    throw new ConfigError(`${name} must be a size in bytes, or digits and K, M or G (such as 1G), got "${value}"`);
  }
  return bytes;
}

/** `~` and `~/...` as a shell (and GNS3, with expanduser) reads them: GNS3 users write `~/GNS3/projects`. */
function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Resolves the configuration from command-line arguments, the environment and the config file. */
export function resolveConfig(args: readonly string[], env: NodeJS.ProcessEnv): NetemuConfig {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: SERVE_OPTIONS,
      allowPositionals: false,
      strict: true,
    });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const flags = parsed.values as Record<string, string | boolean | undefined>;
  const configDir = resolve(expandHome((flags["config-dir"] as string | undefined) ?? env["NETEMU_CONFIG_DIR"] ?? join(homedir(), ".config", "netemu")));
  const configFile = expandHome((flags["config"] as string | undefined) ?? env["NETEMU_CONFIG"] ?? join(configDir, "gns3_server.conf"));
  const explicitFile = flags["config"] !== undefined || env["NETEMU_CONFIG"] !== undefined;
  let server: Record<string, string> = {};
  let vpcsSection: Record<string, string> = {};
  try {
    const ini = parseIni(readFileSync(configFile, "utf8"));
    server = ini["Server"] ?? {};
    vpcsSection = ini["VPCS"] ?? {};
  } catch (err) {
    if (err instanceof IniSyntaxError) throw new ConfigError(`The config file ${configFile} is not valid: ${err.message}`);
    // The default file is optional: absent, or its directory absent (or not a directory: start-up says so).
    const code = (err as NodeJS.ErrnoException).code;
    if ((code !== "ENOENT" && code !== "ENOTDIR") || explicitFile) {
      throw new ConfigError(`Cannot read the config file ${configFile}: ${(err as Error).message}`);
    }
  }
  for (const negated of ["local", "auth", "extended-filters", "dataplane-balance"] as const) {
    if (flags[`no-${negated}`] === true) flags[negated] = false;
  }
  const raw = (name: SettingName): { source: string; value: string } | undefined => {
    const s = SETTINGS[name];
    const flag = flags[s.flag];
    if (flag !== undefined) return { source: `--${s.flag}`, value: String(flag) };
    const fromEnv = env[s.env];
    if (fromEnv !== undefined && fromEnv !== "") return { source: s.env, value: fromEnv };
    const fromFile = server[s.ini] ?? (name === "vpcsPath" ? vpcsSection[s.ini] : undefined);
    if (fromFile !== undefined) return { source: `${s.ini} in ${configFile}`, value: fromFile };
    return undefined;
  };
  const str = (name: SettingName, fallback: string): string => raw(name)?.value ?? fallback;
  const size = (name: SettingName, fallback: number): number => {
    const r = raw(name);
    return r === undefined ? fallback : parseSize(r.source, r.value);
  };
  /** A bound on what delays hold: a size, at least 64 KiB (a few frames would make any delay drop). */
  const delayLimit = (name: SettingName, fallback: number): number => {
    const bytes = size(name, fallback);
    if (bytes < 65536) throw new ConfigError(`${raw(name)?.source} must be at least 64K, got "${raw(name)?.value}"`);
    return bytes;
  };
  const int = (name: SettingName, fallback: number, min: number, max: number): number => {
    const r = raw(name);
    return r === undefined ? fallback : parseIntIn(r.source, r.value, min, max);
  };
  const bool = (name: SettingName, fallback: boolean): boolean => {
    const r = raw(name);
    return r === undefined ? fallback : parseBool(r.source, r.value);
  };
  const udpStart = int("udpStart", DEFAULTS.udpStart, 1, 65535);
  const udpEnd = int("udpEnd", DEFAULTS.udpEnd, 1, 65535);
  if (udpEnd < udpStart) throw new ConfigError(`The UDP port range ${udpStart}-${udpEnd} is empty`);
  const consoleStart = int("consoleStart", DEFAULTS.consoleStart, 1, 65535);
  const consoleEnd = int("consoleEnd", DEFAULTS.consoleEnd, 1, 65535);
  if (consoleEnd < consoleStart) throw new ConfigError(`The console port range ${consoleStart}-${consoleEnd} is empty`);
  // Read by the transport itself (ADR 0068); checked here so a typo stops the start instead of being ignored.
  const udpPath = env["NETEMU_UDP_PATH"];
  if (udpPath !== undefined && udpPath !== "" && udpPath !== "dgram") throw new ConfigError(`NETEMU_UDP_PATH must be dgram or unset, got "${udpPath}"`);
  const udpGso = env["NETEMU_UDP_GSO"];
  if (udpGso !== undefined && udpGso !== "" && udpGso !== "on" && udpGso !== "off") throw new ConfigError(`NETEMU_UDP_GSO must be on, off or unset, got "${udpGso}"`);
  const coalesce = udpCoalesceSetting(env["NETEMU_UDP_COALESCE_US"]);
  if (typeof coalesce !== "number") throw new ConfigError(coalesce.notUnderstood);
  // Read by the transport too (ADR 0105): a typo stops the start rather than leaving them on.
  if (inProcessLinksSetting(env["NETEMU_IN_PROCESS_LINKS"]) === "not understood") throw new ConfigError(`NETEMU_IN_PROCESS_LINKS must be ${IN_PROCESS_LINKS_VALUES}, got "${env["NETEMU_IN_PROCESS_LINKS"]}"`);
  const logLevel = str("logLevel", DEFAULTS.logLevel) as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  const logFile = logFileSettings(raw("logFile")?.value, raw("logMaxSize"), int("logMaxFiles", DEFAULTS.logMaxFiles, 1, 1000));
  const host = str("host", DEFAULTS.host);
  const auth = { enabled: bool("auth", false), user: str("user", "").trim(), password: str("password", "").trim() };
  // GNS3 refuses to start so too: every request would be answered 401.
  if (auth.enabled && auth.user === "") {
    throw new ConfigError(`authentication is on (${raw("auth")?.source}) but no user is set: give --user (NETEMU_USER, user in [Server]) and --password`);
  }
  // Local mode lets any client stop the server and write files: not by default for the world (ADR 0046).
  const notices: string[] = [];
  let local = bool("local", DEFAULTS.local);
  if (raw("local") === undefined && exposureWarning({ host, auth }) !== undefined) {
    local = false;
    notices.push(`local mode is off: serving on ${host} without authentication, POST /v2/shutdown and /v2/debug are refused (--local turns it on)`);
  }
  return {
    notices,
    host,
    port: int("port", DEFAULTS.port, 0, 65535),
    local,
    gns3Version: str("gns3Version", DEFAULTS.gns3Version),
    udpPortRange: { start: udpStart, end: udpEnd },
    consolePortRange: { start: consoleStart, end: consoleEnd },
    configDir,
    projectsPath: resolve(expandHome(str("projectsPath", join(configDir, "projects")))),
    auth,
    logLevel,
    bodyLimitBytes: int("bodyLimit", DEFAULTS.bodyLimitBytes, 1024, 2 ** 30),
    udpBufferBytes: int("udpBuffer", DEFAULTS.udpBufferBytes, 65536, 2 ** 30),
    dataPlaneWorkers: int("dataPlaneWorkers", DEFAULTS.dataPlaneWorkers, 0, 64),
    dataPlaneBalance: bool("dataPlaneBalance", DEFAULTS.dataPlaneBalance),
    maxProjectFileBytes: int("maxProjectFileSize", DEFAULTS.maxProjectFileBytes, 1024, 2 ** 30),
    maxProjectNodes: int("maxProjectNodes", DEFAULTS.maxProjectNodes, 1, CONFIGURATION_LIMITS.nodesPerProject),
    extendedFilters: bool("extendedFilters", false),
    logFile,
    maxUploadBytes: size("maxUploadSize", DEFAULTS.maxUploadBytes),
    maxProjectFilesBytes: size("maxProjectFilesSize", DEFAULTS.maxProjectFilesBytes),
    delayLimits: delayLimits(delayLimit("delayLimitPort", DEFAULTS.delayLimitPortBytes), delayLimit("delayLimitWorker", DEFAULTS.delayLimitWorkerBytes)),
    ...(raw("vpcsPath") === undefined ? {} : { vpcsPath: str("vpcsPath", "vpcs") }),
    v3: { gns3Version: str("gns3V3Version", DEFAULTS.gns3V3Version), noAuth: bool("v3NoAuth", false) },
    ...webUiSetting(raw("webUi")),
  };
}

/**
 * The web UI directory, checked now: a path that is not a directory holding an index.html would make
 * every page visit a 404 the user finds long after the start (ADR 0092).
 */
function webUiSetting(setting: { source: string; value: string } | undefined): { webUiDir?: string } {
  if (setting === undefined || setting.value.trim() === "") return {};
  const dir = resolve(expandHome(setting.value.trim()));
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (err) {
    throw new ConfigError(`${setting.source}: the web UI directory ${dir} cannot be read: ${(err as Error).message}`);
  }
  if (!isDirectory) throw new ConfigError(`${setting.source}: ${dir} is not a directory (give the directory holding the GNS3 web UI's index.html)`);
  try {
    if (!statSync(join(dir, "index.html")).isFile()) throw new Error("not a regular file");
  } catch {
    throw new ConfigError(`${setting.source}: ${dir} has no index.html: it is not a compiled GNS3 web UI (unpack gns3-web-ui's release, or GNS3 server's static/web-ui, and give that directory)`);
  }
  return { webUiDir: dir };
}

function delayLimits(portBytes: number, workerBytes: number): NetemuConfig["delayLimits"] {
  return { heldBytesPerPort: portBytes, heldFramesPerPort: Math.floor(portBytes / 1024), heldBytesPerWorker: workerBytes, heldFramesPerWorker: Math.floor(workerBytes / 1024) };
}

/** A size as rotating-file-stream reads it; a unit is required so that "10" is not ten bytes by mistake. */
const LOG_SIZE = /^[1-9]\d*[BKMG]$/;

function logFileSettings(path: string | undefined, maxSize: { source: string; value: string } | undefined, maxFiles: number): NetemuConfig["logFile"] {
  if (maxSize !== undefined && !LOG_SIZE.test(maxSize.value)) {
    throw new ConfigError(`${maxSize.source} must be a size such as 500K, 10M or 1G, got "${maxSize.value}"`);
  }
  if (path === undefined || path.trim() === "") return undefined;
  return { path: resolve(expandHome(path)), maxSize: maxSize?.value ?? DEFAULTS.logMaxSize, maxFiles };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/** The warning to log when the API is reachable beyond this machine without authentication. */
export function exposureWarning(settings: Pick<ServerSettings, "host" | "auth">): string | undefined {
  if (isLoopback(settings.host) || settings.auth.enabled) return undefined;
  return `serving on ${settings.host} without authentication: anyone who can reach this address controls netemu (use --auth --user --password)`;
}
