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
}
