import "reflect-metadata";
import { join } from "node:path";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { hostname } from "node:os";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import type Koa from "koa";
import { TOKENS } from "../application/ports/tokens.js";
import type { ServerSettings } from "../application/ports/server-settings.js";
import type { DataPlane, DataPlaneThreads } from "../application/ports/data-plane.js";
import { type DataPlaneHealth, NO_DATA_PLANE_WORKERS } from "../application/ports/data-plane-health.js";
import type { Clock, IdGenerator, Logger, LogLevel } from "../application/ports/system.js";
import type {
  ComputeNodeRepository,
  ComputeProjectRepository,
  LinkRepository,
  NodeRepository,
  ProjectRepository,
} from "../application/ports/repositories.js";
import type { SettingsStore } from "../application/ports/settings-store.js";
import type { UdpTransport } from "../application/ports/udp-transport.js";
import type { HostDevices } from "../application/ports/host-devices.js";
import { NoHostDevices, chooseHostDevices } from "./transport/host-devices.js";
import type { NamespaceHosts } from "../application/ports/namespace-hosts.js";
import { IpNamespaceHosts } from "./system/namespace-hosts.js";
import type { CaptureSink } from "../application/ports/capture-sink.js";
import type { ProjectFiles } from "../application/ports/project-files.js";
import type { PacketCaptures } from "../application/ports/packet-captures.js";
import { KeyedLock } from "../application/keyed-lock.js";
import { USE_CASES, type UseCases } from "../application/use-cases/index.js";
import { SwitchDataPlane } from "../application/dataplane/switch-data-plane.js";
import type { RandomSourceFactory, Timers } from "../application/ports/timers.js";
import { createHttpApp } from "./http/app.js";
import {
  InMemoryComputeNodeRepository,
  InMemoryComputeProjectRepository,
  InMemoryLinkRepository,
  InMemoryNodeRepository,
  InMemoryProjectRepository,
} from "./persistence/in-memory-repositories.js";
import { ProjectDirectoryFiles } from "./persistence/project-directory-files.js";
import { computeProjectsPath } from "../application/use-cases/compute/capture-path.js";
import type { UploadLimits } from "../application/ports/project-files.js";
import { NotificationHub } from "../application/notification-hub.js";
import type { Notifications } from "../application/ports/notifications.js";
import { ProjectEventHub } from "../application/project-event-hub.js";
import type { ProjectEvents } from "../application/ports/project-events.js";
import type { HostMetrics, NetworkInterfaces } from "../application/ports/host.js";
import { OsHostMetrics } from "./system/host-metrics.js";
import { HostNetworkInterfaces } from "./system/network-interfaces.js";
import { consoleFor } from "./http/console-socket.js";
import { CONSOLE_RELAY_LIMITS, type ConsoleRelayLimits } from "./http/console-relay-options.js";
import { NotificationSocketServer } from "./http/notification-socket.js";
import { controllerFeedFor } from "./http/controller/project-notifications.js";
import { NodeStatusRelay } from "../application/use-cases/controller/node-status-relay.js";
import { LoginGate } from "./http/auth.js";
import { LoginThrottle } from "./http/login-throttle.js";
import { type BacklogLimits, NotificationBacklogs } from "./http/notification-feed.js";
import { servedWhenFirstCalled, upgradeDispatch } from "./http/upgrade-dispatch.js";
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts, type ListeningServer, listenHttp, stopHttp } from "./http/http-server.js";
import { StopCore } from "../application/use-cases/server/stop-core.js";
import { DEFAULT_PLACEMENT_POLICY } from "../domain/placement/placement.js";
import { WorkerDataPlane } from "./threads/data-plane/worker-data-plane.js";
import { FileImpairmentStore } from "./persistence/file-impairment-store.js";
import type { ImpairmentStore } from "../application/ports/impairment-store.js";
import { Gns3ProjectStore, type WriteDelay } from "./persistence/gns3-project-store.js";
import { ProjectsPathLock } from "./persistence/projects-path-lock.js";
import { NOTHING_TO_WRITE } from "../application/ports/project-writes.js";
import { NO_TOPOLOGY_FILES } from "../application/ports/topology-files.js";
import { FileSettingsStore } from "./persistence/file-settings-store.js";
import { chooseDatagramPath, datagramOptions, withInProcessLinks, type DatagramPath } from "./transport/datagram-path.js";
import { DgramUdpPortPool } from "./transport/udp-port-pool.js";
import { TcpConsolePortPool } from "./transport/tcp-console-pool.js";
import { ChildHostProcesses } from "./system/child-host-processes.js";
import { KernelConsoleClients } from "./system/kernel-console-clients.js";
import type { ConsoleClients } from "../application/ports/console-clients.js";
import type { HostProcesses } from "../application/ports/host-processes.js";
import { HostRuntime } from "../application/use-cases/compute/host-runtime.js";
import { ShutdownSignal } from "../application/shutdown-signal.js";
import { FileTraceStore } from "./persistence/file-trace-store.js";
import type { TraceStore } from "../application/ports/trace-store.js";
import { ScheduleClockwork } from "../application/schedules/schedule-clockwork.js";
import { ScheduleResync } from "../application/schedules/schedule-resync.js";
import { LinuxHostRuntime } from "../application/use-cases/compute/linux-host-runtime.js";

/** GNS3's console port range (console_start_port_range .. console_end_port_range). */
const DEFAULT_CONSOLE_PORTS = { start: 5000, end: 10000 } as const;
import { PcapFileSink } from "./capture/pcap-file-sink.js";
import { RandomUuidGenerator, SystemClock } from "./system/system-clock.js";
import { HostSystemInfo } from "./system/host-system-info.js";
import { DirectoryDebugBundleWriter } from "./system/debug-bundle-writer.js";
import { PinoLogger } from "./system/pino-logger.js";
import { ThreadedBpfCompiler } from "./threads/bpf-compiler/threaded-bpf-compiler.js";
import { FilterPrograms } from "../application/filter-programs.js";
import { NodeTimers, SeededRandomFactory } from "./system/node-timers.js";
import { DEFAULT_DATA_PLANE_OPTIONS, type DataPlaneOptions } from "../application/dataplane/switch-data-plane.js";
import { PACKAGE_VERSION } from "./system/package-version.js";
import { DEFAULTS } from "./config/server-config.js";
import { hostCapacity } from "./system/host-capacity.js";
import { shutdownSequence } from "./system/shutdown-sequence.js";
import { PrometheusMetrics } from "./metrics/prometheus-metrics.js";

/** Ports an embedding host may replace (a controller's own repositories, say); each is typed by its port. */
export interface PortOverrides {
  readonly projectRepository?: ProjectRepository;
  readonly computeProjectRepository?: ComputeProjectRepository;
  readonly computeNodeRepository?: ComputeNodeRepository;
  readonly nodeRepository?: NodeRepository;
  readonly linkRepository?: LinkRepository;
  readonly settingsStore?: SettingsStore;
  /** Where netemu's impairments on GNS3 ports are kept (default: `<config dir>/impairments.json`, ADR 0067). */
  readonly impairmentStore?: ImpairmentStore;
  /** The uploaded traces (ADR 0103); default: files under the config dir. */
  readonly traceStore?: TraceStore;
  readonly logger?: Logger;
  readonly udpTransport?: UdpTransport;
  /** How nio_tap and nio_ethernet open their devices (default: the native addon's, ADR 0083). */
  readonly hostDevices?: HostDevices;
  /** Linux hosts in network namespaces (default: made with iproute2, recorded in `<config dir>/namespace-hosts`, ADR 0083). */
  readonly namespaceHosts?: NamespaceHosts;
  readonly clock?: Clock;
  readonly idGenerator?: IdGenerator;
  /** A data plane of the host's own runs the captures too. */
  readonly dataPlane?: DataPlane & PacketCaptures;
  /** The threads of the host's own data plane, for the metrics of their event-loop delay. */
  readonly dataPlaneThreads?: DataPlaneThreads;
  /** What the host's own data plane tells of its threads' deaths, for readiness, metrics and the way back (ADR 0073). */
  readonly dataPlaneHealth?: DataPlaneHealth;
  readonly timers?: Timers;
  readonly randomSourceFactory?: RandomSourceFactory;
  readonly notifications?: Notifications;
  /** Where the controller's project events go (GNS3's project notifications, ADR 0091). */
  readonly projectEvents?: ProjectEvents;
  readonly hostMetrics?: HostMetrics;
  readonly networkInterfaces?: NetworkInterfaces;
  readonly captureSink?: CaptureSink;
  readonly projectFiles?: ProjectFiles;
  /** What runs host nodes' processes (VPCS, ADR 0081). */
  readonly hostProcesses?: HostProcesses;
  /** What drops the clients of a node's telnet console on a console reset (default: the kernel's, through `ss -K`, ADR 0099). */
  readonly consoleClients?: ConsoleClients;
}

export interface NetemuOptions {
  /** Any setting left out takes its default (see `netemu serve --help`). */
  readonly settings?: Partial<ServerSettings>;
  readonly logLevel?: LogLevel;
  readonly bodyLimitBytes?: number;
  /** Socket receive/send buffer per UDP NIO, in bytes. */
  readonly udpBufferBytes?: number;
  /** How long a client may take to send its headers and its whole request, and stay idle. */
  readonly httpTimeouts?: Partial<HttpTimeouts>;
  /** MAC aging and table size of every switch; the bounds on what delays hold, per port and per data-plane thread (ADR 0072). */
  readonly dataPlane?: Partial<DataPlaneOptions>;
  /**
   * How many worker threads run the data plane (ADR 0041): 0 (the default) runs it on the main
   * thread; N ≥ 1 spreads the switches and hubs over N workers, so frames never wait for the API.
   */
  readonly dataPlaneWorkers?: number;
  /**
   * With workers, busy nodes move between them by measured load (ADR 0069). Off unless asked for an
   * embedder (nodes stay where their id hashes); `netemu serve` asks for it by default.
   */
  readonly dataPlaneBalance?: boolean;
  /**
   * Keeps the controller's projects as GNS3 project files, `<projects_path>/<project_id>/<name>.gns3`,
   * read back (closed) on the next start (ADR 0042). Off by default: an embedder's projects stay in
   * memory, or in repositories of its own (overrides); `netemu serve` turns it on. The projects path
   * is then locked for this core until shutdown: createNetemu throws `ProjectsPathLocked`, naming the
   * holder, when another live server holds it (ADR 0058).
   */
  readonly persistProjects?: boolean;
  /**
   * Limits on the project files read at start, how long shutdown waits for writes that fail (ADR 0057),
   * and when a changed project is written (ADR 0086: after 100 ms without a change, at the latest 1 s after the first unwritten one).
   */
  readonly projectFiles?: { readonly maxFileBytes?: number; readonly maxNodes?: number; readonly flushTimeoutMs?: number; readonly writeDelay?: WriteDelay };
  /** Caps on the compute files API's uploads, one file and one project's files (ADR 0060). */
  readonly uploadLimits?: Partial<UploadLimits>;
  readonly overrides?: PortOverrides;
  /** The bound on notification clients that do not read (ADR 0059); defaults: 1 MiB each, 64 MiB in all, 2 s grace. */
  readonly notificationBacklog?: Partial<BacklogLimits>;
  /** The bound on web console clients that do not read (ADR 0095); defaults: pause above 256 KiB, drop after 30 s stalled. */
  readonly consoleRelay?: Partial<ConsoleRelayLimits>;
}

export { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts, type ListeningServer } from "./http/http-server.js";

/** A running netemu core: its use cases, its Koa app, and its lifecycle. */
export interface Netemu {
  readonly settings: ServerSettings;
  readonly useCases: UseCases;
  readonly container: DependencyContainer;
  /** The Koa application serving the GNS3 v2 API (mount it, or call listen()). */
  readonly app: Koa;
  listen(port?: number, host?: string): Promise<ListeningServer>;
  /**
   * Serves the compute notification websocket (`GET /v2/compute/notifications/ws`) for an HTTP
   * server of the host's own that mounts `app`: call it from that server's `upgrade` event.
   * listen() wires it itself.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every project, switch and socket, and the HTTP server if listening. Idempotent. */
  shutdown(): Promise<void>;
  /** Resolves once the core has shut down (through shutdown(), POST /v2/shutdown or a signal). */
  readonly stopped: Promise<void>;
  /** Which datagram path the UDP NIOs run on, and why not the batched one (ADR 0068); "host" when the host gave its own transport. */
  readonly datagramPath: DatagramPath;
}

export type { DatagramPath } from "./transport/datagram-path.js";

function defaultSettings(partial: Partial<ServerSettings> = {}): ServerSettings {
  const configDir = partial.configDir ?? `${process.cwd()}/.netemu`;
  return {
    gns3Version: DEFAULTS.gns3Version,
    local: DEFAULTS.local,
    host: DEFAULTS.host,
    port: DEFAULTS.port,
    udpPortRange: { start: DEFAULTS.udpStart, end: DEFAULTS.udpEnd },
    configDir,
    projectsPath: `${configDir}/projects`,
    auth: { enabled: false, user: "", password: "" },
    extendedFilters: false,
    ...partial,
  };
}

/** The one place where the container is wired: every port gets its adapter or the host's override. */
export function createNetemu(options: NetemuOptions = {}): Netemu {
  const settings = defaultSettings(options.settings);
  const o = options.overrides ?? {};
  const c = rootContainer.createChildContainer();
  const logger = o.logger ?? new PinoLogger(options.logLevel ?? "info");
  const value = (token: symbol, v: unknown): void => void c.register(token, { useValue: v });
  // First, before anything reads or writes the projects, or starts a thread a refusal would leave behind.
  const projectsLock = options.persistProjects === true ? ProjectsPathLock.acquire(settings.projectsPath, { address: settings.host, port: settings.port }, logger) : undefined;

  value(TOKENS.ServerSettings, settings);
  value(TOKENS.Logger, logger);
  value(TOKENS.KeyedLock, new KeyedLock());
  // One cache of compiled pcap-filter programs (ADR 0054): a filter's text is compiled once, off the
  // API's event loop when it is big, whether a use case checks it, the data plane runs it or a
  // worker thread receives it.
  // The uploaded traces (ADR 0103), under the config dir so that they survive a restart.
  const traceStore = o.traceStore ?? new FileTraceStore(settings.configDir, logger);
  value(TOKENS.TraceStore, traceStore);
  value(TOKENS.TraceBook, traceStore);
  const compiler = new ThreadedBpfCompiler(logger);
  // Every door that checks filters checks the traces they name too (ADR 0103).
  const programs = new FilterPrograms(compiler, traceStore);
  value(TOKENS.BpfCompiler, compiler);
  value(TOKENS.BpfPrograms, programs);
  value(TOKENS.Timers, o.timers ?? new NodeTimers());
  value(TOKENS.RandomSourceFactory, o.randomSourceFactory ?? new SeededRandomFactory());
  const dataPlaneOptions = { ...DEFAULT_DATA_PLANE_OPTIONS, ...options.dataPlane };
  value(TOKENS.DataPlaneOptions, dataPlaneOptions);
  value(TOKENS.Clock, o.clock ?? new SystemClock());
  value(TOKENS.IdGenerator, o.idGenerator ?? new RandomUuidGenerator());
  const projectFiles = options.persistProjects === true ? new Gns3ProjectStore(settings.projectsPath, settings.gns3Version, programs, logger, options.projectFiles) : undefined;
  // Whether the disk holds every acknowledged change: the readiness route and the metrics ask (ADR 0057).
  value(TOKENS.ProjectWrites, projectFiles ?? NOTHING_TO_WRITE);
  // The .gns3 files skipped at start and POST /v2/projects/load (ADR 0085).
  value(TOKENS.TopologyFiles, projectFiles ?? NO_TOPOLOGY_FILES);
  value(TOKENS.ProjectRepository, o.projectRepository ?? projectFiles?.projects ?? new InMemoryProjectRepository());
  value(TOKENS.ComputeProjectRepository, o.computeProjectRepository ?? new InMemoryComputeProjectRepository());
  value(TOKENS.ComputeNodeRepository, o.computeNodeRepository ?? new InMemoryComputeNodeRepository());
  const impairmentFiles = o.impairmentStore === undefined ? new FileImpairmentStore(settings.configDir, logger) : undefined;
  value(TOKENS.ImpairmentStore, o.impairmentStore ?? impairmentFiles);
  // The compute role's files live apart from the controller's projects (ADR 0060).
  const uploadLimits = { maxUploadBytes: DEFAULTS.maxUploadBytes, maxProjectFilesBytes: DEFAULTS.maxProjectFilesBytes, ...options.uploadLimits };
  const computeFiles = o.projectFiles === undefined ? new ProjectDirectoryFiles(computeProjectsPath(settings.projectsPath), uploadLimits, logger, settings.projectsPath) : undefined;
  value(TOKENS.ProjectFiles, o.projectFiles ?? computeFiles);
  const notifications = o.notifications ?? new NotificationHub();
  value(TOKENS.Notifications, notifications);
  value(TOKENS.ProjectEvents, o.projectEvents ?? new ProjectEventHub());
  value(TOKENS.HostMetrics, o.hostMetrics ?? new OsHostMetrics(settings.projectsPath));
  value(TOKENS.HostFacts, { platform: process.platform, hostname: hostname(), capacity: hostCapacity(settings.projectsPath) });
  value(TOKENS.NetworkInterfaces, o.networkInterfaces ?? new HostNetworkInterfaces(settings.host));
  value(TOKENS.NodeRepository, o.nodeRepository ?? projectFiles?.nodes ?? new InMemoryNodeRepository());
  value(TOKENS.LinkRepository, o.linkRepository ?? projectFiles?.links ?? new InMemoryLinkRepository());
  value(TOKENS.SettingsStore, o.settingsStore ?? new FileSettingsStore(settings.configDir));
  value(TOKENS.SystemInfoProvider, new HostSystemInfo(PACKAGE_VERSION));
  value(TOKENS.DebugBundleWriter, new DirectoryDebugBundleWriter(settings.configDir));
  const transport = datagramOptions(settings.host, options.udpBufferBytes ?? DEFAULTS.udpBufferBytes);
  const udp = chooseDatagramPath(o.udpTransport, transport, logger);
  const datagramPath: DatagramPath = udp.path;
  value(TOKENS.UdpTransport, withInProcessLinks(udp, transport, logger));
  const devices = o.hostDevices ?? chooseHostDevices();
  if (devices instanceof NoHostDevices) logger.info("nio_tap and nio_ethernet are refused", { reason: devices.reason });
  value(TOKENS.HostDevices, devices);
  const namespaceHosts = o.namespaceHosts ?? new IpNamespaceHosts(join(settings.configDir, "namespace-hosts"), logger);
  value(TOKENS.NamespaceHosts, namespaceHosts);
  // What a netemu killed with -9 left (its namespaces and TAPs, by its record) goes at this start.
  const leftoversRemoved = namespaceHosts.removeLeftovers().catch((err: unknown) => {
    logger.error("namespace hosts left behind could not be removed", { reason: err instanceof Error ? err.message : String(err) });
    return [];
  });
  value(TOKENS.UdpPortPool, new DgramUdpPortPool(settings.udpPortRange.start, settings.udpPortRange.end, transport.bindHost.includes(":") ? "0.0.0.0" : transport.bindHost));
  value(TOKENS.CaptureSink, o.captureSink ?? new PcapFileSink());
  // Host nodes' processes and their consoles (ADR 0081); one runtime holds what each running host holds.
  const childProcesses = o.hostProcesses === undefined ? new ChildHostProcesses(logger, join(settings.configDir, "host-processes")) : undefined;
  // What a netemu killed with -9 left running (its VPCS, by its record) ends at this start; starts wait for it (ADR 0088).
  const processesEnded = childProcesses?.endLeftovers().catch((err: unknown) => {
    logger.error("host processes left behind could not be ended", { reason: err instanceof Error ? err.message : String(err) });
    return [];
  });
  const hostProcesses = o.hostProcesses ?? (childProcesses as ChildHostProcesses);
  value(TOKENS.HostProcesses, hostProcesses);
  value(TOKENS.ConsolePortPool, new TcpConsolePortPool(settings.consolePortRange ?? DEFAULT_CONSOLE_PORTS));
  value(TOKENS.ConsoleClients, o.consoleClients ?? new KernelConsoleClients());
  c.registerSingleton(HostRuntime);
  c.registerSingleton(ShutdownSignal);
  // One runtime for Linux hosts: it hears a restarted worker's node.restored and plugs the host's TAPs again (ADR 0087).
  c.registerSingleton(LinuxHostRuntime);
  // One clockwork for every schedule's alarms, and its resync (ADR 0102).
  c.registerSingleton(ScheduleClockwork);
  c.registerSingleton(ScheduleResync);
  const workers = options.dataPlaneWorkers ?? 0;
  // Only worker threads have loops of their own to measure (the main thread's is the process's).
  let threads: DataPlaneThreads = { eventLoopDelays: async () => [] };
  let health: DataPlaneHealth = NO_DATA_PLANE_WORKERS;
  if (o.dataPlane !== undefined) value(TOKENS.DataPlane, o.dataPlane);
  else if (workers > 0) {
    const workerDataPlane = new WorkerDataPlane({
      workers,
      dataPlane: dataPlaneOptions,
      transport,
      notifications,
      logger,
      programs,
      traces: traceStore,
      ...(options.dataPlaneBalance === true ? { placement: DEFAULT_PLACEMENT_POLICY } : {}),
    });
    value(TOKENS.DataPlane, workerDataPlane);
    threads = workerDataPlane;
    health = workerDataPlane;
  } else c.registerSingleton(TOKENS.DataPlane, SwitchDataPlane);
  value(TOKENS.DataPlaneThreads, o.dataPlaneThreads ?? threads);
  // Which nodes are dark because their worker died, read by readiness and the metrics (ADR 0073).
  const dataPlaneHealth = o.dataPlaneHealth ?? health;
  value(TOKENS.DataPlaneHealth, dataPlaneHealth);
  // The data plane's sockets are where captures tap the frames: one object serves both ports.
  c.register(TOKENS.PacketCaptures, { useFactory: (container) => container.resolve(TOKENS.DataPlane) });

  let httpServer: Server | undefined;
  const { shutdown, stopped, lifecycle } = shutdownSequence({
    logger,
    // No scheduled step is applied while the core stops (ADR 0102).
    beginStopping: () => (c.resolve(ScheduleClockwork).stop(), c.resolve(ShutdownSignal).begin()),
    stopServing: (meanwhile) => stopHttp(httpServer, meanwhile),
    uploads: computeFiles,
    // Built below from the use cases, which the lifecycle is registered for first.
    notificationSockets: { close: () => notificationSockets.close() },
    stopCore: () => c.resolve(StopCore).execute(),
    filterPrograms: programs,
    impairments: impairmentFiles,
    namespaceHosts: { close: async () => void (await leftoversRemoved, await processesEnded, await namespaceHosts.close()) },
    projectFiles,
    projectsPath: settings.projectsPath,
    projectsLock,
  });
  value(TOKENS.Lifecycle, lifecycle);

  c.resolve(ScheduleResync);
  const useCases = Object.fromEntries(Object.entries(USE_CASES).map(([name, cls]) => [name, c.resolve(cls as never)])) as UseCases;
  // One bound on slow notification clients for the websocket and the HTTP streams together (ADR 0059).
  const notificationBacklogs = new NotificationBacklogs(options.notificationBacklog, logger);
  const metrics = new PrometheusMetrics(() => useCases.takeMetricsSnapshot.execute(), projectFiles ?? NOTHING_TO_WRITE, notificationBacklogs, datagramPath.kind, dataPlaneHealth);
  const scheduleClockwork = c.resolve(ScheduleClockwork);
  metrics.scheduleSteps(() => scheduleClockwork.liveSteps());
  // One failed-login table for every door (ADR 0061): a locked-out address is locked out of the websocket too.
  // A host's clock when it gives one (tests do), else a monotonic one: a wall-clock step must not lift a lockout.
  const loginClock = o.clock === undefined ? () => performance.now() : () => o.clock!.nowMs();
  const loginGate = new LoginGate(settings.auth, new LoginThrottle(logger, loginClock), metrics);
  const app = createHttpApp({
    useCases,
    settings,
    logger,
    packageVersion: PACKAGE_VERSION,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes,
    metrics,
    loginGate,
    notificationBacklogs,
  });

  // A node's live status changes (started, stopped, a VPCS that died) reach the project's clients as node.updated (ADR 0091).
  c.resolve(NodeStatusRelay).start();
  const notificationSockets = new NotificationSocketServer(useCases, loginGate, logger, {
    backlogs: notificationBacklogs,
    feeds: (path) => controllerFeedFor(useCases, settings.host, path),
    consoles: (path) => consoleFor(useCases, path),
    consoleLimits: { ...CONSOLE_RELAY_LIMITS, ...options.consoleRelay },
    ...(settings.v3 === undefined ? {} : { v3: settings.v3 }),
  });
  const serveHttp = servedWhenFirstCalled(app);
  const handleUpgrade = upgradeDispatch(notificationSockets, serveHttp);

  return {
    settings,
    useCases,
    container: c,
    app,
    stopped,
    shutdown,
    handleUpgrade,
    datagramPath,
    async listen(port = settings.port, host = settings.host) {
      // What a killed run left unfinished is swept before the first request can come.
      await computeFiles?.ready;
      const listening = await listenHttp(serveHttp, handleUpgrade, { port, host, timeouts: { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts } });
      httpServer = listening.server;
      projectsLock?.listening(host, listening.port);
      return listening;
    },
  };
}
