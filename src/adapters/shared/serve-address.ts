/**
 * Where `netemu serve` listens unless told (`--host`, `--port`), and so where netemu's own clients
 * (`netemu impair`) look for it unless told (`--server`, NETEMU_SERVER): one value, so the two cannot
 * drift. GNS3's port: a GNS3 2.2 client finds netemu where it finds a GNS3 server, which also means a
 * desktop GNS3 controller on the same machine listens there (ADR 0080: a client says so when it meets one).
 */
export const SERVE_DEFAULTS = { host: "127.0.0.1", port: 3080 } as const;

/** The URL of a server listening at SERVE_DEFAULTS. */
export const DEFAULT_SERVER_URL = `http://${SERVE_DEFAULTS.host}:${SERVE_DEFAULTS.port}`;
