import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { Clock } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** One port's counters in a lab's reading. */
export interface LabPortCounters {
  readonly nodeId: string;
  readonly portNumber: number;
  readonly counters: PortCounters;
}

/** A lab's live counters at one moment: the page takes rates from two readings (ADR 0094). */
export interface LabCounters {
  readonly projectId: string;
  /** When the data plane was read (the server's clock, ms): rates divide by the time between two readings. */
  readonly atMs: number;
  readonly ports: readonly LabPortCounters[];
  /** Learned addresses of each switch's MAC table, by node id. */
  readonly macTableEntries: ReadonlyMap<string, number>;
  /** Nodes whose data plane did not answer (a worker that died): drawn without figures. */
  readonly unanswered: readonly string[];
}

/** What ReadLabCounters can answer instead of its result. */
export const READ_LAB_COUNTERS_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;

/**
 * Every port counter of a lab in one reading, so that a page watching 1,000 nodes makes one request a
 * refresh rather than one a node. The data plane is asked about every node at once (with worker threads
 * each question is a message, answered in parallel).
 */
@injectable()
export class ReadLabCounters {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<Refusal<typeof READ_LAB_COUNTERS_REFUSALS>, LabCounters>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    const members = (await this.computeNodes.list()).filter((n) => n.projectId === projectId);
    const ports: LabPortCounters[] = [];
    const macTableEntries = new Map<string, number>();
    const unanswered: string[] = [];
    await Promise.all(
      members.map(async (node) => {
        try {
          const [counters, macTable] = await Promise.all([this.dataPlane.counters(node.nodeId), node.nodeType === "ethernet_switch" ? this.dataPlane.macTable(node.nodeId) : undefined]);
          for (const [portNumber, c] of counters) if (portNumber < HOST_INSIDE_OFFSET) ports.push({ nodeId: node.nodeId, portNumber, counters: c });
          if (macTable !== undefined) macTableEntries.set(node.nodeId, macTable.length);
        } catch {
          // One unreachable worker must not blank the whole lab: its nodes are named instead.
          unanswered.push(node.nodeId);
        }
      }),
    );
    return E.right({ projectId, atMs: this.clock.nowMs(), ports, macTableEntries, unanswered });
  }
}
