import type { ControllerEvent, ProjectEvent, ProjectEvents } from "./ports/project-events.js";

/**
 * The in-process fan-out of the controller's events: each project's to the listeners of that
 * project only (a lab of many projects wakes only its own clients), the controller's to all of
 * the controller stream's.
 */
export class ProjectEventHub implements ProjectEvents {
  private readonly projects = new Map<string, Set<(e: ProjectEvent) => void>>();
  private readonly controller = new Set<(e: ControllerEvent) => void>();

  publish(event: ProjectEvent | ControllerEvent): void {
    if (isControllerEvent(event)) return notify(this.controller, event);
    const listeners = this.projects.get(event.projectId);
    if (listeners !== undefined) notify(listeners, event);
  }

  subscribeProject(projectId: string, listener: (event: ProjectEvent) => void): () => void {
    let listeners = this.projects.get(projectId);
    if (listeners === undefined) this.projects.set(projectId, (listeners = new Set()));
    // Each subscription is its own entry, so one function subscribed twice is two listeners.
    const entry = (e: ProjectEvent): void => listener(e);
    listeners.add(entry);
    const own = listeners;
    return () => {
      own.delete(entry);
      if (own.size === 0 && this.projects.get(projectId) === own) this.projects.delete(projectId);
    };
  }

  subscribeController(listener: (event: ControllerEvent) => void): () => void {
    const entry = (e: ControllerEvent): void => listener(e);
    this.controller.add(entry);
    return () => void this.controller.delete(entry);
  }

  get listenerCount(): number {
    let n = this.controller.size;
    for (const listeners of this.projects.values()) n += listeners.size;
    return n;
  }
}

export function isControllerEvent(event: ProjectEvent | ControllerEvent): event is ControllerEvent {
  return event.kind.startsWith("project.");
}

function notify<E>(listeners: Iterable<(e: E) => void>, event: E): void {
  // A copy: a listener may unsubscribe (its client gone) while being told.
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch {
      // A failing listener is its adapter's problem; the use case that published goes on.
    }
  }
}
