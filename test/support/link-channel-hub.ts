import type { LinkChannel } from "../../src/adapters/transport/in-process-links.js";

/**
 * The threads' BroadcastChannel for in-process links (ADR 0111), in memory and run by hand: what one
 * channel posts is cloned as a message between threads is (SharedArrayBuffers shared) and given to
 * every other open channel of the hub at `deliver()`, never to the poster, as BroadcastChannel does.
 */
export class LinkChannelHub {
  /** Every message posted, in order, as posted. */
  readonly posted: unknown[] = [];
  private readonly channels = new Set<HubChannel>();
  private pending: { from: HubChannel; data: unknown }[] = [];

  readonly open = (): LinkChannel => {
    const channel = new HubChannel(this);
    this.channels.add(channel);
    return channel;
  };

  get openChannels(): number {
    return this.channels.size;
  }

  post(from: HubChannel, message: unknown): void {
    this.posted.push(message);
    this.pending.push({ from, data: structuredClone(message) });
  }

  closed(channel: HubChannel): void {
    this.channels.delete(channel);
  }

  /** Gives what was posted to the other channels, and what that makes them post, until nothing is left. */
  deliver(): void {
    for (let round = 0; this.pending.length > 0; round++) {
      if (round === 100) throw new Error("the threads never stop talking");
      this.deliverOnce();
    }
  }

  /** Gives what was posted so far to the other channels; what that makes them post waits for the next call. */
  deliverOnce(): void {
    for (const { from, data } of this.pending.splice(0)) for (const c of this.channels) if (c !== from) c.onmessage?.({ data });
  }

  /** Gives `data` to every open channel, as a stranger on the channel would. */
  inject(data: unknown): void {
    for (const c of this.channels) c.onmessage?.({ data });
  }
}

class HubChannel implements LinkChannel {
  onmessage: ((event: { readonly data: unknown }) => void) | null = null;
  constructor(private readonly hub: LinkChannelHub) {}
  postMessage(message: unknown): void {
    this.hub.post(this, message);
  }
  close(): void {
    this.hub.closed(this);
  }
}
