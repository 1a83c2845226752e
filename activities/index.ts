import type { Db } from '../domain/db/database.ts';
import { createDeviceLoginActivities } from './device-login.ts';

export interface ActivityDeps {
  db: Db;
}

/** All activities, built from their dependencies (the worker passes the real ones). */
export function createActivities(deps: ActivityDeps) {
  return { ...createDeviceLoginActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
