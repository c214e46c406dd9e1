import type { Impairment, ImpairmentTarget } from "../../domain/switching/impairment-overlay.js";

/**
 * Impairments by node, then port: what the data plane asks on each NIO (a node's impairments) costs
 * what that node has, and a change costs one entry, however many the store holds (ADR 0071).
 */
export class ImpairmentIndex {
  private readonly byNode = new Map<string, Map<string, Impairment>>();

  private static portKey(t: ImpairmentTarget): string {
    return `${t.projectId}/${t.portNumber}`;
  }

  get(t: ImpairmentTarget): Impairment | undefined {
    return this.byNode.get(t.nodeId)?.get(ImpairmentIndex.portKey(t));
  }

  set(i: Impairment): void {
    let ports = this.byNode.get(i.nodeId);
    if (ports === undefined) this.byNode.set(i.nodeId, (ports = new Map()));
    ports.set(ImpairmentIndex.portKey(i), i);
  }

  remove(t: ImpairmentTarget): void {
    const ports = this.byNode.get(t.nodeId);
    if (ports === undefined) return;
    ports.delete(ImpairmentIndex.portKey(t));
    if (ports.size === 0) this.byNode.delete(t.nodeId);
  }

  ofNode(nodeId: string): readonly Impairment[] {
    return [...(this.byNode.get(nodeId)?.values() ?? [])];
  }

  all(): Impairment[] {
    return [...this.byNode.values()].flatMap((ports) => [...ports.values()]);
  }
}
