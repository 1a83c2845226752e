import type { Db } from '../domain/db/database.ts';
import { trimChanges } from '../domain/ontology/subscriptions/trim-changes.ts';

export function createOntologyActivities(deps: { db: Db }) {
  return {
    /** One batch of the ontology changes' retention; `now` comes from the workflow, so time skipping applies. */
    trimOntologyChanges: (input: { now: string; keepHours: number; batchSize: number }) =>
      trimChanges(deps.db, { ...input, now: new Date(input.now) }),
  };
}
