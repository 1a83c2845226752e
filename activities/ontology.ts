import type { Db } from '../domain/db/database.ts';
import { sweepBranches } from '../domain/ontology/branches/sweep-branches.ts';

export function createOntologyActivities(deps: { db: Db }) {
  return {
    /** One sweep of definition branches; `now` comes from the workflow, so time skipping applies. */
    sweepOntologyBranches: (input: { now: string }) => sweepBranches(deps.db, new Date(input.now)),
  };
}
