import type { Db } from '../domain/db/index.ts';
import { recordMonthlyReset } from '../domain/usage/index.ts';

export function createUsageActivities(deps: { db: Db }) {
  return {
    /** Idempotent per month: a retried or repeated run records nothing twice. */
    recordMonthlyReset: (atIso: string) => recordMonthlyReset(deps.db, new Date(atIso)),
  };
}
