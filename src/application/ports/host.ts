/**
 * Facts about the machine netemu runs on, as a GNS3 compute reports them to its controller: the
 * load in the notification ping, the statistics, and the addresses its UDP tunnels are reachable on.
 */

/** What the compute's `ping` notification carries; both are 0..100. */
export interface HostLoad {
  readonly cpuUsagePercent: number;
  readonly memoryUsagePercent: number;
}

/** GNS3's `GET /v2/compute/statistics`: bytes, and integer percentages. */
export interface HostStatistics {
  readonly memoryTotal: number;
  readonly memoryFree: number;
  readonly memoryUsed: number;
  readonly swapTotal: number;
  readonly swapFree: number;
  readonly swapUsed: number;
  readonly cpuUsagePercent: number;
  readonly memoryUsagePercent: number;
  readonly swapUsagePercent: number;
  readonly diskUsagePercent: number;
  /** The 1, 5 and 15 minute load averages as a percentage of the CPU count. */
  readonly loadAveragePercent: readonly [number, number, number];
}

export interface HostMetrics {
  /** System-wide CPU use over the last sampling window (about a second) and memory in use. */
  load(): HostLoad;
  /** The statistics; disk usage is that of the file system holding the projects directory. */
  statistics(): Promise<HostStatistics>;
}

/** One entry of GNS3's `GET /v2/compute/network/interfaces`. */
export interface NetworkInterface {
  readonly id: string;
  readonly name: string;
  /** An IPv4 address, or "" for an interface without one. */
  readonly ipAddress: string;
  readonly netmask: string;
  readonly macAddress: string;
  readonly type: "ethernet" | "tap";
  /** Loopback, bridges, virtual switches and the like (GNS3's list of name prefixes). */
  readonly special: boolean;
}

export interface NetworkInterfaces {
  /** The interfaces, with every address netemu's UDP tunnels can be reached on among them. */
  list(): readonly NetworkInterface[];
}

/** Facts about the host that do not change while netemu runs. */
export interface HostFacts {
  /** As GNS3 reports it in its capabilities: "linux", "darwin", "win32" ... */
  readonly platform: string;
  /** The machine's name: GNS3 names its local compute so in `/v2/computes`. */
  readonly hostname: string;
  /** What a GNS3 3.x compute states in its capabilities (ADR 0066); zeros when unknown. */
  readonly capacity?: HostCapacity;
}

export interface HostCapacity {
  /** Logical CPUs. */
  readonly cpus: number;
  readonly memoryBytes: number;
  /** The size of the file system holding the projects directory. */
  readonly diskBytes: number;
}
