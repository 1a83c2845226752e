import { sql } from 'kysely';
import type { EvolveChange, ImprovementView, ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';

// Proposals and improvements as stored, read with their app's `namespace/slug`.

const MICROS = sql<string>`to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Cursor of a page: the last row's creation time (microseconds) and id, base64url. */
export const encodeCursor = (row: { at_key: string; id: string }) => Buffer.from(`${row.at_key} ${row.id}`).toString('base64url');
export function decodeCursor(cursor: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  if (!at || !id || extra !== undefined || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at)) {
    throw new DomainError('invalid_payload', 'cursor is not one this service returned.', { details: { field: 'cursor' } });
  }
  return { at, id };
}

export const selectProposals = (db: DbOrTrx) =>
  db
    .selectFrom('evolve_proposals as x')
    .innerJoin('apps as a', 'a.id', 'x.app_id')
    .leftJoin('evolve_improvements as i', 'i.proposal_id', 'x.id')
    .selectAll('x')
    .select(['a.namespace', 'a.slug', 'i.id as improvement_id', MICROS.as('at_key')]);

export type ProposalRow = Awaited<ReturnType<ReturnType<typeof selectProposals>['executeTakeFirstOrThrow']>>;

export const proposalView = (r: ProposalRow): ProposalView => ({
  id: r.id,
  app: `${r.namespace}/${r.slug}`,
  scope: r.scope,
  account: r.account_id,
  status: r.status,
  author: { kind: r.author_kind, account: r.author_account_id, agent: r.author_agent },
  title: r.title,
  rationale: r.rationale,
  changes: r.changes as EvolveChange[],
  evidence: r.evidence as string[],
  createdAt: r.created_at.toISOString(),
  decidedBy: r.decided_by,
  decidedAt: r.decided_at?.toISOString() ?? null,
  improvement: r.improvement_id,
});

/** A proposal or an improvement by id in a namespace, and, on the legacy per-app paths, of the app named there. */
export interface Ref {
  namespace: string;
  id: string;
  slug?: string | undefined;
}

/** One proposal of the namespace (404 proposal_not_found otherwise, whatever other namespace holds it). */
export async function findProposal(db: DbOrTrx, ref: Ref, lock = false): Promise<ProposalRow> {
  const { namespace, id } = ref;
  let query = selectProposals(db).where('x.id', '=', id).where('a.namespace', '=', namespace);
  if (ref.slug !== undefined) query = query.where('a.slug', '=', ref.slug);
  if (lock) query = query.forUpdate('x');
  const row = await query.executeTakeFirst();
  if (!row) throw new DomainError('proposal_not_found', `No proposal ${id} in ${namespace}.`);
  return row;
}

export const selectImprovements = (db: DbOrTrx) =>
  db
    .selectFrom('evolve_improvements as x')
    .innerJoin('apps as a', 'a.id', 'x.app_id')
    .selectAll('x')
    .select(['a.namespace', 'a.slug', MICROS.as('at_key')]);

export type ImprovementRow = Awaited<ReturnType<ReturnType<typeof selectImprovements>['executeTakeFirstOrThrow']>>;

export const improvementView = (r: ImprovementRow): ImprovementView => ({
  id: r.id,
  app: `${r.namespace}/${r.slug}`,
  proposal: r.proposal_id,
  scope: r.scope,
  account: r.account_id,
  changes: r.changes as EvolveChange[],
  createdAt: r.created_at.toISOString(),
  createdBy: r.created_by,
});
