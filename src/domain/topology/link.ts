import * as E from "fp-ts/lib/Either.js";
import type { FilterSettings } from "../filters/filter-settings.js";
import type { Label } from "./label.js";
import type { ArmedSchedule } from "../filters/schedule.js";

export interface LinkEnd {
  readonly nodeId: string;
  readonly adapterNumber: number;
  readonly portNumber: number;
  readonly label: Label;
  /** The UDP port reserved on this end's compute for the link's tunnel. */
  readonly udpPort: number;
  /**
   * netemu's one-way impairments (ADR 0051): filters on the frames this end's node sends over the
   * link, applied at this end's NIO as it sends them. None unless set.
   */
  readonly filters?: FilterSettings;
  /** The frames this end's node sends, as a function of time (ADR 0102): instead of `filters`, never with them. */
  readonly schedule?: ArmedSchedule;
}

export interface LinkCapture {
  readonly fileName: string;
  readonly filePath: string;
}

/**
 * How a client draws a link, kept for it (GNS3 never reads it): a color, a width and a line type as
 * GNS3's clients write them, and any other key a client adds.
 */
export type LinkStyle = Readonly<{ color?: string; width?: number; type?: number } & Record<string, unknown>>;

export interface Link {
  readonly linkId: string;
  readonly projectId: string;
  readonly nodes: readonly [LinkEnd, LinkEnd];
  readonly filters: FilterSettings;
  readonly suspend: boolean;
  readonly linkStyle: LinkStyle;
  readonly capture: LinkCapture | null;
}

export interface LinkEndpoint {
  readonly nodeId: string;
  readonly adapterNumber: number;
  readonly portNumber: number;
}

export type LinkRuleViolation =
  | { readonly _tag: "CannotConnectToItself" }
  /** `endpoint` is an end of `link` already: the use case names both for the user. */
  | { readonly _tag: "PortHeldByLink"; readonly endpoint: LinkEndpoint; readonly link: Link };

const sameEndpoint = (a: LinkEndpoint, b: LinkEndpoint): boolean =>
  a.nodeId === b.nodeId && a.adapterNumber === b.adapterNumber && a.portNumber === b.portNumber;

/** GNS3: a link may not join a port to itself, nor use a port another link holds. */
export function checkNewLink(
  ends: readonly [LinkEndpoint, LinkEndpoint],
  existing: readonly Link[],
): E.Either<LinkRuleViolation, void> {
  if (sameEndpoint(ends[0], ends[1])) return E.left({ _tag: "CannotConnectToItself" });
  for (const end of ends) {
    const holder = existing.find((l) => l.nodes.some((n) => sameEndpoint(n, end)));
    if (holder !== undefined) return E.left({ _tag: "PortHeldByLink", endpoint: end, link: holder });
  }
  return E.right(undefined);
}
