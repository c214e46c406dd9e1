import { MAX_EXPRESSION_LENGTH } from "../bpf/limits.js";

/**
 * How big a piece of configuration may be, at every door (HTTP, project files, the embedding API, the
 * worker boundary). Each bound is far above what a lab needs and low enough that parsing, storing and
 * answering the value stays cheap; the README lists them (ADR 0053).
 */
export const CONFIGURATION_LIMITS = {
  /** Ports in one switch's or hub's ports_mapping: a 48-port switch is common; 1,024 leaves room for odd labs. */
  portsPerNode: 1024,
  /** Port numbers 0..65535: GNS3 sets no maximum; a number above it could not be a UDP port's peer either. */
  maxPortNumber: 65_535,
  /** Node and port names, in characters (a file name can hold 255 bytes; longer names only cost). */
  nameLength: 255,
  /** Remote host of a UDP NIO: a DNS name has at most 253 characters. */
  hostLength: 253,
  /** Nodes in one project (controller or compute): 5,000 switches and hubs open in seconds. */
  nodesPerProject: 5_000,
  /** Links in one controller project. */
  linksPerProject: 10_000,
  /** Drawings in one controller project (text, shapes, images on the map, ADR 0091). */
  drawingsPerProject: 10_000,
  /**
   * Characters of one drawing's SVG: an embedded photo of a few hundred KiB fits; every drawing is
   * held in memory and in the project file, so the bound keeps both small.
   */
  drawingSvgLength: 1_048_576,
  /** Nesting of a project's free-form `variables` and `supplier` (GNS3's are two levels deep). */
  jsonDepth: 32,
  /** Expression lines of one bpf or match filter (each line one pcap-filter expression). */
  filterLines: 64,
  /** Characters of one pcap-filter expression line: the compiler's own bound (ADR 0052). */
  expressionLength: MAX_EXPRESSION_LENGTH,
  /**
   * Characters of all the expressions of one bpf or match filter: four of the longest lines. The
   * compiler's work budget bounds each line (~100 ms at worst, off the API's loop, ADR 0054); this bounds
   * what one filter can ask of it (~0.5 s).
   */
  filterText: 65_536,
} as const;
