import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNotification, type Notifications, projectOf } from "../../ports/notifications.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What WatchNotifications can answer instead of its result. */
export type WatchNotificationsError = ComputeProjectLookupError;

export interface WatchNotificationsInput {
  /** Only this project's notifications (the project must exist); all of them when left out. */
  readonly projectId?: string | undefined;
  readonly listener: (notification: ComputeNotification) => void;
}

/** Subscribes to the compute's notifications; the Right value ends the subscription. */
@injectable()
export class WatchNotifications {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
  ) {}

  async execute(input: WatchNotificationsInput): Promise<E.Either<WatchNotificationsError, () => void>> {
    const { projectId, listener } = input;
    if (projectId === undefined) return E.right(this.notifications.subscribe(listener));
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    return E.right(
      this.notifications.subscribe((n) => {
        if (projectOf(n) === projectId) listener(n);
      }),
    );
  }
}
