/** The configuration the use cases read (resolved from flags, environment and file). */
export interface ServerSettings {
  readonly gns3Version: string;
  readonly local: boolean;
  readonly host: string;
  readonly port: number;
  readonly udpPortRange: { readonly start: number; readonly end: number };
  /** The TCP ports host consoles (VPCS) are given; GNS3's 5000–10000 when left out. */
  readonly consolePortRange?: { readonly start: number; readonly end: number };
  readonly configDir: string;
  readonly projectsPath: string;
  readonly auth: { readonly enabled: boolean; readonly user: string; readonly password: string };
  /**
   * Whether `available_filters` lists netemu's impairments (NETEMU_FILTER_CATALOGUE) after
   * GNS3's five. Off by default: GNS3 clients see exactly GNS3's descriptors. The kinds are accepted
   * on links and NIOs either way.
   */
  readonly extendedFilters: boolean;
  /** The VPCS program host nodes run (ADR 0081): a path, or a name looked up in PATH; "vpcs" when left out. */
  readonly vpcsPath?: string;
  /** The /v3/compute slice for GNS3 3.x controllers (ADR 0066); its defaults when left out. */
  readonly v3?: V3Settings;
  /** The directory holding the compiled GNS3 web UI the user supplies (ADR 0092); not served when left out. */
  readonly webUiDir?: string;
}

/** What the /v3/compute slice reports and how it checks credentials (ADR 0066). */
export interface V3Settings {
  /** The GNS3 version /v3/compute reports: a stable 3.x controller demands its own exactly. */
  readonly gns3Version: string;
  /**
   * 3.x computes always check credentials; with auth off, /v3/compute refuses every request unless
   * this says, explicitly, that it is served without credentials.
   */
  readonly noAuth: boolean;
}

export const V3_DEFAULTS: V3Settings = { gns3Version: "3.0.6", noAuth: false };
