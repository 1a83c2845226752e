import type { Db } from '../domain/db/index.ts';
import { sweepBranches, trimChanges } from '../domain/ontology/index.ts';

export function createOntologyActivities(deps: { db: Db }) {
  return {
    /** One batch of the ontology changes' retention; `now` comes from the workflow, so time skipping applies. */
    trimOntologyChanges: (input: { now: string; keepHours: number; batchSize: number }) =>
      trimChanges(deps.db, { ...input, now: new Date(input.now) }),
    /** One sweep of definition branches; `now` comes from the workflow, so time skipping applies. */
    sweepOntologyBranches: (input: { now: string }) => sweepBranches(deps.db, new Date(input.now)),
  };
}
