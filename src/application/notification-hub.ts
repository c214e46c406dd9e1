import type { ComputeNotification, Notifications } from "./ports/notifications.js";

/** The in-process fan-out of compute notifications to whoever listens (websockets, streams). */
export class NotificationHub implements Notifications {
  private readonly listeners = new Set<(n: ComputeNotification) => void>();

  publish(notification: ComputeNotification): void {
    for (const listener of this.listeners) {
      try {
        listener(notification);
      } catch {
        // A failing listener is its adapter's problem; the use case that published goes on.
      }
    }
  }

  subscribe(listener: (n: ComputeNotification) => void): () => void {
    // Each subscription is its own entry, so one function subscribed twice is two listeners.
    const entry = (n: ComputeNotification): void => listener(n);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
