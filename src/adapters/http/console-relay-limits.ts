// Apart from the relay itself so that NetemuOptions (a public type) does not reach the `ws` package's types.

export interface ConsoleRelayLimits {
  /** Console output waiting for a browser beyond this pauses reading the telnet socket (the node blocks on its console, as on a real line). */
  readonly pauseAboveBytes: number;
  /** A browser that takes nothing for this long while reading is paused is dropped, and the node's console socket freed. */
  readonly stalledMs: number;
}

export const CONSOLE_RELAY_LIMITS: ConsoleRelayLimits = { pauseAboveBytes: 256 * 1024, stalledMs: 30_000 };
