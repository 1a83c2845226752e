import type { Db } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { findQueryExport } from './capabilities.ts';
import { runQueryExport } from './run-query-export.ts';

/** A `use` step: calls one capability of the catalog (a built-in or a query export) with its input (`=` values evaluated already). */
export async function useCapability(db: Db, runId: string, capability: string, input: Record<string, unknown>): Promise<unknown> {
  const run = await db
    .selectFrom('workflow_runs as r')
    .innerJoin('apps as a', 'a.id', 'r.app_id')
    .select(['a.company_id', 'r.started_at'])
    .where('r.id', '=', runId)
    .executeTakeFirstOrThrow();
  switch (capability) {
    case 'platform.accounts': {
      if (run.company_id === null) return [];
      let query = db
        .selectFrom('accounts as a')
        .innerJoin('licenses as l', 'l.account_id', 'a.id')
        .select(['a.username', 'a.email', 'l.role'])
        .where('l.company_id', '=', run.company_id)
        .where('a.status', '=', 'active');
      if (input.role === 'developer' || input.role === 'member') query = query.where('l.role', '=', input.role);
      return query.orderBy('a.username').execute();
    }
    case 'platform.clock': {
      const now = run.started_at;
      return { now: now.toISOString(), date: now.toISOString().slice(0, 10), hour: now.getUTCHours(), weekday: now.getUTCDay() };
    }
    default: {
      const query = run.company_id === null ? undefined : await findQueryExport(db, run.company_id, capability);
      // Deploy validation refuses unknown names; an export removed since lands here.
      if (!query || run.company_id === null)
        throw new DomainError('conflict', `${capability} is no longer in the company's capability catalog.`);
      return runQueryExport(db, run.company_id, query, input);
    }
  }
}
