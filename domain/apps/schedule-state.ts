/** An app's Temporal Schedule as Temporal holds it (it may be paused, or deleted, in the Web UI). */
export type AppScheduleState = { exists: false } | { exists: true; paused: boolean; note: string | null; nextActionTimes: Date[] };

/** Reads an app's schedule state from Temporal; undefined when Temporal did not answer in time. */
export interface AppScheduleObserver {
  observe(appId: string): Promise<AppScheduleState | undefined>;
}
