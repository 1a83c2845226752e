import { sql } from 'kysely';
import type { QueryExport } from '../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../db/database.ts';

// The company's capability catalog: what a workflow `use` step may call. The platform's built-in
// capabilities, and the `query` exports of the company's apps (production versions), named
// `<slug>.<export name>`.

export interface CapabilityParameter {
  type: string;
  required: boolean;
  description?: string | undefined;
}

export interface Capability {
  name: string;
  source: 'platform' | 'export';
  /** The app offering an export. */
  app: string | null;
  title: string;
  description: string;
  input: Record<string, CapabilityParameter>;
  /** Whether a `use` step can run it on this service now; `reason` says why not. */
  runnable: boolean;
  reason?: string;
}

/** A query export runs over the data layer's semantic types (`domain/ontology/`). */
export const QUERY_EXPORTS_UNAVAILABLE =
  'query exports run over the data layer (semantic types), which this service does not have yet; a workflow cannot use them until it lands';

export const PLATFORM_CAPABILITIES: readonly Capability[] = [
  {
    name: 'platform.accounts',
    source: 'platform',
    app: null,
    title: 'Company accounts',
    description: 'The company’s active accounts (username, email, role), optionally of one role.',
    input: { role: { type: 'text', required: false, description: 'developer or member' } },
    runnable: true,
  },
  {
    name: 'platform.clock',
    source: 'platform',
    app: null,
    title: 'Run time',
    description: 'The run’s start time (UTC): `now` (ISO), `date` (YYYY-MM-DD), `hour`, `weekday` (0 = Sunday).',
    input: {},
    runnable: true,
  },
];

export async function capabilityCatalog(db: DbOrTrx, companyId: string | null): Promise<Capability[]> {
  if (companyId === null) return [...PLATFORM_CAPABILITIES];
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', 'a.production_version_id')
    .select(['a.slug', sql<QueryExport[] | null>`v.manifest -> 'exports'`.as('exports')])
    .where('a.company_id', '=', companyId)
    .orderBy('a.slug')
    .execute();
  const exported = rows.flatMap((row) =>
    (row.exports ?? []).map(
      (e): Capability => ({
        name: `${row.slug}.${e.name}`,
        source: 'export',
        app: row.slug,
        title: e.title,
        description: e.description ?? '',
        input: Object.fromEntries(
          Object.entries(e.input ?? {}).map(([name, p]) => [
            name,
            { type: p.type, required: p.required ?? false, description: p.description },
          ]),
        ),
        runnable: false,
        reason: QUERY_EXPORTS_UNAVAILABLE,
      }),
    ),
  );
  return [...PLATFORM_CAPABILITIES, ...exported];
}
