/** The configuration the use cases read (resolved from flags, environment and file). */
export interface ServerSettings {
  readonly gns3Version: string;
  readonly local: boolean;
  readonly host: string;
  readonly port: number;
  readonly udpPortRange: { readonly start: number; readonly end: number };
  readonly configDir: string;
  readonly projectsPath: string;
  readonly auth: { readonly enabled: boolean; readonly user: string; readonly password: string };
  /**
   * Whether `available_filters` lists netemu's impairments (NETEMU_FILTER_CATALOGUE) after
   * GNS3's five. Off by default: GNS3 clients see exactly GNS3's descriptors. The kinds are accepted
   * on links and NIOs either way.
   */
  readonly extendedFilters: boolean;
}
