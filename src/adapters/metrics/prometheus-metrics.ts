import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { COMPUTE_NODE_TYPES } from "../../domain/switching/compute-node.js";
import type { MetricsSnapshot, NodeFigures } from "../../application/use-cases/server/take-metrics-snapshot.js";
import type { PortCounters } from "../../application/ports/data-plane.js";
import type { QueueStatistics } from "../../domain/queueing/queue-statistics.js";
import { processMetrics } from "./process-metrics.js";
import type { LiveScheduleStep } from "../../application/schedules/schedule-clockwork.js";
import { NOTHING_TO_WRITE, type ProjectWrites } from "../../application/ports/project-writes.js";
import { type DataPlaneHealth, NO_DATA_PLANE_WORKERS } from "../../application/ports/data-plane-health.js";

/** The label a request gets when no route answered it (unknown path, or refused by auth before routing). */
const NO_ROUTE = "none";
const NODE_STATUSES = ["started", "stopped", "suspended"] as const;
/**
 * A port's series carry its ids and numbers (what dashboards built before issue 27 select on) and the
 * names its users know (project, node, port: ADR 0085). A name is one value per id, so the names add
 * no series; a rename starts a new series, as a new id would.
 */
const PORT_LABELS = ["project_id", "project_name", "node_id", "node_name", "port_number", "port_name"] as const;
const NODE_LABELS = ["project_id", "project_name", "node_id", "node_name"] as const;
const REQUEST_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type PortLabels = Record<(typeof PORT_LABELS)[number], string>;

function portLabels(node: NodeFigures, portNumber: number): PortLabels {
  return { ...nodeLabels(node), port_number: String(portNumber), port_name: node.portNames.get(portNumber) ?? String(portNumber) };
}

function nodeLabels(node: NodeFigures): Record<(typeof NODE_LABELS)[number], string> {
  return { project_id: node.projectId, project_name: node.projectName, node_id: node.nodeId, node_name: node.name };
}

/**
 * netemu's Prometheus metrics, in a registry of this instance's own (a host may run several
 * instances, or have its own global registry). HTTP figures are counted as requests are answered;
 * the lab's figures are read from a MetricsSnapshot at each scrape, one snapshot shared by every
 * metric of that scrape (ADR 0043).
 */
/** What the notification feeds tell of their slow clients (ADR 0059). */
export interface NotificationClientFigures {
  dropped(): readonly { readonly kind: string; readonly reason: string; readonly count: number }[];
  queuedBytes(): number;
  liveQueuedBytes(): number;
  clientCount(kind: "websocket" | "stream"): number;
}

export class PrometheusMetrics {
  /** netemu's own metrics; `registry` adds the process's. */
  private readonly own = new Registry();
  /** Made at the first scrape, and again after a metric joins `own`. */
  private registry: Registry | undefined;
  private readonly requests: Counter<"route" | "status">;
  private readonly requestSeconds: Histogram<"route">;
  private readonly loginFailures: Counter<"door">;
  private readonly loginsThrottled: Counter<"door">;
  private pending: Promise<MetricsSnapshot> | undefined;

  constructor(
    private readonly takeSnapshot: () => Promise<MetricsSnapshot>,
    writes: ProjectWrites = NOTHING_TO_WRITE,
    notificationClients?: NotificationClientFigures,
    datagramPath?: string,
    dataPlane: DataPlaneHealth = NO_DATA_PLANE_WORKERS,
  ) {
    const registers = [this.own];
    // Which datagram path the UDP NIOs run on (ADR 0068): a slow fallback shows on a dashboard.
    if (datagramPath !== undefined) {
      new Gauge({ name: "netemu_datagram_path_info", help: "1 for the datagram path the UDP NIOs run on: batched (recvmmsg/sendmmsg addon), dgram (node:dgram fallback) or host (the embedding host's own transport).", labelNames: ["path"], registers }).set({ path: datagramPath }, 1);
    }
    // Project writes (ADR 0057): read from the store at each scrape, no snapshot needed.
    new Counter({
      name: "netemu_project_write_failures_total",
      help: "Project file writes that failed (each retry counts), by error code.",
      labelNames: ["code"],
      registers,
      collect(this: Counter<"code">) {
        this.reset();
        for (const [code, count] of writes.failedWrites()) this.inc({ code }, count);
      },
    });
    new Gauge({
      name: "netemu_unwritten_projects",
      help: "Projects whose latest change is in memory but not yet in their file, because writing it fails.",
      registers,
      collect(this: Gauge) {
        this.set(writes.unwritten().length);
      },
    });
    this.workerDeathMetrics(dataPlane);
    this.requests = new Counter({ name: "netemu_http_requests_total", help: "HTTP requests answered, by route name and status.", labelNames: ["route", "status"], registers });
    this.requestSeconds = new Histogram({
      name: "netemu_http_request_duration_seconds",
      help: "Time from a request's arrival to its answer's start, by route name.",
      labelNames: ["route"],
      buckets: REQUEST_SECONDS_BUCKETS,
      registers,
    });
    this.labCounter("netemu_port_receive_frames_total", "Frames received on a port from its NIO, before any filter.", (c) => c.framesIn);
    this.labCounter("netemu_port_receive_bytes_total", "Bytes received on a port from its NIO, before any filter.", (c) => c.bytesIn);
    this.labCounter("netemu_port_transmit_frames_total", "Frames sent on a port to its NIO, after its filters.", (c) => c.framesOut);
    this.labCounter("netemu_port_transmit_bytes_total", "Bytes sent on a port to its NIO, after its filters.", (c) => c.bytesOut);
    new Counter({
      name: "netemu_port_dropped_frames_total",
      help: "Frames a port dropped (either direction), by reason.",
      labelNames: [...PORT_LABELS, "reason"],
      registers,
      collect: this.fromSnapshot(function (this: Counter, s) {
        for (const node of s.nodes) {
          for (const [port, counters] of node.ports) {
            for (const [reason, frames] of Object.entries(counters.drops)) this.inc({ ...portLabels(node, port), reason }, frames);
          }
        }
      }),
    });
    this.queueDelayMetrics();
    this.queueMetrics();
    new Gauge({
      name: "netemu_mac_table_entries",
      help: "Addresses learned in a switch's MAC table.",
      labelNames: NODE_LABELS,
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        for (const n of s.nodes) if (n.macTableEntries !== undefined) this.set(nodeLabels(n), n.macTableEntries);
      }),
    });
    new Gauge({
      name: "netemu_nodes",
      help: "Switches and hubs on the compute, by type and status.",
      labelNames: ["node_type", "status"],
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        for (const node_type of COMPUTE_NODE_TYPES) for (const status of NODE_STATUSES) this.set({ node_type, status }, 0);
        for (const n of s.nodes) this.inc({ node_type: n.nodeType, status: n.status });
      }),
    });
    new Gauge({
      name: "netemu_unanswered_nodes",
      help: "Switches and hubs whose live figures the data plane did not give at this scrape (a data-plane worker that died for good).",
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        this.set(s.nodes.filter((n) => !n.answered).length);
      }),
    });
    new Gauge({
      name: "netemu_nios",
      help: "NIOs on the compute's switch and hub ports, by type.",
      labelNames: ["type"],
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        for (const [type, count] of Object.entries(s.nios)) this.set({ type }, count);
      }),
    });
    new Gauge({
      name: "netemu_controller_projects",
      help: "Projects on netemu's controller API, by status.",
      labelNames: ["status"],
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        for (const [status, count] of Object.entries(s.controllerProjects)) this.set({ status }, count);
      }),
    });
    new Gauge({
      name: "netemu_compute_projects",
      help: "Projects on netemu's compute API (each controller's project that places nodes here).",
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        this.set(s.computeProjects);
      }),
    });
    new Gauge({
      name: "netemu_links",
      help: "Links on netemu's controller API, over every project.",
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        this.set(s.links);
      }),
    });
    const loopFigures = [
      ["min", "minSeconds", "The minimum"],
      ["mean", "meanSeconds", "The mean"],
      ["p50", "p50Seconds", "The 50th percentile"],
      ["p90", "p90Seconds", "The 90th percentile"],
      ["p99", "p99Seconds", "The 99th percentile"],
      ["max", "maxSeconds", "The maximum"],
    ] as const;
    for (const [suffix, field, what] of loopFigures) {
      new Gauge({
        name: `netemu_dataplane_eventloop_lag_${suffix}_seconds`,
        help: `${what} of a data-plane worker thread's event-loop delays since the previous scrape.`,
        labelNames: ["worker"],
        registers,
        collect: this.fromSnapshot(function (this: Gauge, s) {
          for (const loop of s.dataPlaneLoops) this.set({ worker: String(loop.worker) }, loop[field]);
        }),
      });
    }
    // Login counters (ADR 0061), by door: a request, or the notification websocket's upgrade.
    const doors = (c: Counter<"door">): Counter<"door"> => (c.inc({ door: "http" }, 0), c.inc({ door: "websocket" }, 0), c);
    this.loginFailures = doors(new Counter({ name: "netemu_login_failures_total", help: "Logins refused for wrong or missing credentials, by door (http, websocket).", labelNames: ["door"], registers }));
    this.loginsThrottled = doors(new Counter({ name: "netemu_login_throttled_total", help: "Requests answered 429 without a credential check: their address is locked out after failed logins, by door.", labelNames: ["door"], registers }));
    if (notificationClients !== undefined) this.notificationClientMetrics(notificationClients);
  }

  /** Data-plane workers' deaths as operator events (ADR 0073): read from the data plane at each scrape. */
  private workerDeathMetrics(dataPlane: DataPlaneHealth): void {
    const registers = [this.own];
    const perWorker = (name: string, help: string, count: (c: ReturnType<DataPlaneHealth["lifeCounts"]>[number]) => number): void =>
      void new Counter({
        name,
        help,
        labelNames: ["worker"],
        registers,
        collect(this: Counter<"worker">) {
          this.reset();
          for (const c of dataPlane.lifeCounts()) this.inc({ worker: String(c.worker) }, count(c));
        },
      });
    perWorker("netemu_dataplane_worker_deaths_total", "Data-plane worker threads that died (out of memory, an uncaught error), by worker.", (c) => c.deaths);
    perWorker("netemu_dataplane_worker_restarts_total", "Data-plane worker threads started again after a death (by themselves, after a back-off, or by the operator), by worker.", (c) => c.restarts);
    new Gauge({
      name: "netemu_dataplane_workers_given_up",
      help: "Data-plane workers that died too often and are not running: their nodes forward nothing until the next attempt or POST /v2/netemu/data-plane/restart.",
      registers,
      collect(this: Gauge) {
        this.set(dataPlane.darkWorkers().filter((w) => w.state === "given_up").length);
      },
    });
    new Gauge({
      name: "netemu_dataplane_dark_nodes",
      help: "Switches and hubs that forward nothing because their data-plane worker died and has not given them back yet.",
      registers,
      collect(this: Gauge) {
        this.set(dataPlane.darkWorkers().reduce((n, w) => n + w.nodes.length, 0));
      },
    });
  }

  private notificationClientMetrics(figures: NotificationClientFigures): void {
    const registers = [this.own];
    new Counter({
      name: "netemu_notification_clients_dropped_total",
      help: "Notification clients (compute websocket, project stream) dropped for not reading, by kind and reason.",
      labelNames: ["kind", "reason"],
      registers,
      collect(this: Counter) {
        this.reset();
        for (const d of figures.dropped()) this.inc({ kind: d.kind, reason: d.reason }, d.count);
      },
    });
    new Gauge({
      name: "netemu_notification_queued_bytes",
      help: "Bytes of notifications queued for clients that have not read them yet: for the clients served, and for those dropped whose connection is not cut yet.",
      labelNames: ["clients"],
      registers,
      collect(this: Gauge) {
        const served = figures.liveQueuedBytes();
        this.set({ clients: "served" }, served);
        this.set({ clients: "dropped" }, Math.max(0, figures.queuedBytes() - served));
      },
    });
    new Gauge({
      name: "netemu_notification_clients",
      help: "Notification clients served, by kind.",
      labelNames: ["kind"],
      registers,
      collect(this: Gauge) {
        for (const kind of ["websocket", "stream"] as const) this.set({ kind }, figures.clientCount(kind));
      },
    });
  }

  /**
   * Each scheduled direction's active step (ADR 0102), read from `steps` at each scrape: a series per
   * live port end and direction, gone when the schedule or the port's NIO is.
   */
  scheduleSteps(steps: () => readonly LiveScheduleStep[]): void {
    new Gauge({
      name: "netemu_schedule_step",
      help: "The step a port direction's schedule runs now (0-based; a windows schedule's steps are its base and its windows in turn).",
      labelNames: [...PORT_LABELS, "direction"],
      registers: [this.own],
      collect(this: Gauge) {
        this.reset();
        for (const s of steps()) {
          this.set({ project_id: s.projectId, project_name: s.projectName, node_id: s.nodeId, node_name: s.nodeName, port_number: String(s.portNumber), port_name: s.portName, direction: s.direction }, s.step);
        }
      },
    });
    // The merged registry is a copy of the metrics it was made of: made again with this one.
    this.registry = undefined;
  }

  loginFailed(door: "http" | "websocket"): void {
    this.loginFailures.inc({ door });
  }

  loginThrottled(door: "http" | "websocket"): void {
    this.loginsThrottled.inc({ door });
  }

  /** Counts one answered request under its route's name (bounded, unlike its URL). */
  requestAnswered(route: string | undefined, status: number, seconds: number): void {
    const name = route ?? NO_ROUTE;
    this.requests.inc({ route: name, status: String(status) });
    this.requestSeconds.observe({ route: name }, seconds);
  }

  /** The Prometheus text exposition of every metric. */
  async scrape(): Promise<{ readonly contentType: string; readonly text: string }> {
    // The process's metrics start with the first scrape (ADR 0113).
    this.registry ??= Registry.merge([this.own, await processMetrics()]);
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /**
   * How long frames waited in each direction's queue before their transmission started (ADR 0097): the
   * sum and the count (`rate()` of one over the other is the mean over any range) and the recent
   * maximum. A direction's series appear once a frame went through its queue (a port without
   * `bandwidth` has none), as a drop reason's do.
   */
  private queueDelayMetrics(): void {
    const registers = [this.own];
    const labelNames = [...PORT_LABELS, "direction"] as const;
    const each = (s: MetricsSnapshot, put: (labels: Record<(typeof labelNames)[number], string>, q: PortCounters["queueDelay"]["ingress"]) => void): void => {
      for (const node of s.nodes) {
        for (const [port, counters] of node.ports) {
          const q = counters.queueDelay;
          if (q.ingress.frames > 0) put({ ...portLabels(node, port), direction: "in" }, q.ingress);
          if (q.egress.frames > 0) put({ ...portLabels(node, port), direction: "out" }, q.egress);
        }
      }
    };
    new Counter({
      name: "netemu_port_queue_delay_seconds_total",
      help: "Time frames waited in a port's queue (bandwidth) before their transmission started, summed, by direction (in: received from the NIO, out: sent to it).",
      labelNames,
      registers,
      collect: this.fromSnapshot(function (this: Counter, s) {
        each(s, (labels, q) => this.inc(labels, q.sumMs / 1000));
      }),
    });
    new Counter({
      name: "netemu_port_queued_frames_total",
      help: "Frames that went through a port's queue (bandwidth), by direction: the count netemu_port_queue_delay_seconds_total sums over.",
      labelNames,
      registers,
      collect: this.fromSnapshot(function (this: Counter, s) {
        each(s, (labels, q) => this.inc(labels, q.frames));
      }),
    });
    new Gauge({
      name: "netemu_port_queue_delay_max_seconds",
      help: "The longest a frame waited in a port's queue (bandwidth) before its transmission started in the last one to two seconds, by direction.",
      labelNames,
      registers,
      collect: this.fromSnapshot(function (this: Gauge, s) {
        each(s, (labels, q) => this.set(labels, q.maxMs / 1000));
      }),
    });
  }

  /** The bandwidth stage's queues (CoDel, FQ-CoDel: ADR 0100), per port and direction, for the directions that run one. */
  private queueMetrics(): void {
    const each = (kind: "counter" | "gauge", name: string, help: string, value: (q: QueueStatistics) => number): void => {
      const fill = this.fromSnapshot(function (this: Counter | Gauge, s) {
        for (const node of s.nodes) {
          for (const [port, counters] of node.ports) {
            for (const direction of ["ingress", "egress"] as const) {
              const q = counters.queues?.[direction];
              if (q !== undefined) this.inc({ ...portLabels(node, port), direction: direction === "ingress" ? "in" : "out", discipline: q.discipline }, value(q));
            }
          }
        }
      });
      const labelNames = [...PORT_LABELS, "direction", "discipline"];
      if (kind === "counter") new Counter({ name, help, labelNames, registers: [this.own], collect: fill as (this: Counter) => Promise<void> });
      else new Gauge({ name, help, labelNames, registers: [this.own], collect: fill as (this: Gauge) => Promise<void> });
    };
    each("counter", "netemu_port_queue_ecn_marks_total", "ECN-capable frames a port's CoDel or FQ-CoDel queue marked Congestion Experienced instead of dropping, by direction.", (q) => q.ecnMarks);
    each("counter", "netemu_port_queue_sent_frames_total", "Frames a port's CoDel or FQ-CoDel queue sent, by direction.", (q) => q.sentFrames);
    each("counter", "netemu_port_queue_sojourn_seconds_total", "The sum of the sojourn times of the frames a port's CoDel or FQ-CoDel queue sent, by direction: its rate over the sent frames' rate is the mean sojourn.", (q) => q.sojournSumMs / 1000);
    each("gauge", "netemu_port_queue_sojourn_max_seconds", "The longest sojourn of a frame a port's CoDel or FQ-CoDel queue sent, by direction.", (q) => q.sojournMaxMs / 1000);
    each("gauge", "netemu_port_queue_backlog_frames", "Frames waiting in a port's CoDel or FQ-CoDel queue, by direction.", (q) => q.backlogFrames);
  }

  private labCounter(name: string, help: string, value: (counters: PortCounters) => number): void {
    new Counter({
      name,
      help,
      labelNames: PORT_LABELS,
      registers: [this.own],
      collect: this.fromSnapshot(function (this: Counter, s) {
        for (const node of s.nodes) for (const [port, counters] of node.ports) this.inc(portLabels(node, port), value(counters));
      }),
    });
  }

  /**
   * A metric's collect(): empties the metric, then fills it from this scrape's snapshot. The registry
   * collects its metrics concurrently, so the first one takes the snapshot and the others share it;
   * a series whose port, node or project is gone therefore disappears.
   */
  private fromSnapshot<M extends Counter | Gauge>(fill: (this: M, snapshot: MetricsSnapshot) => void): (this: M) => Promise<void> {
    const snapshot = (): Promise<MetricsSnapshot> => {
      this.pending ??= this.takeSnapshot().finally(() => (this.pending = undefined));
      return this.pending;
    };
    return async function (this: M) {
      const s = await snapshot();
      this.reset();
      fill.call(this, s);
    };
  }
}
