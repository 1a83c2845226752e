import { sql } from 'kysely';
import { exportsSchema } from '../../schemas/manifest/exports.ts';
import type { QueryExport } from '../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../db/index.ts';

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

/** The query exports of the company's apps in production, by capability name `<slug>.<export>`. */
async function companyExports(db: DbOrTrx, companyId: string): Promise<{ app: string; name: string; query: QueryExport }[]> {
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', 'a.production_version_id')
    .select(['a.slug', sql<unknown>`v.manifest -> 'exports'`.as('exports')])
    .where('a.company_id', '=', companyId)
    .orderBy('a.slug')
    .execute();
  // Stored manifests were validated at upload; parsing fills defaults added since.
  return rows.flatMap((row) =>
    exportsSchema.parse(row.exports ?? []).map((query) => ({ app: row.slug, name: `${row.slug}.${query.name}`, query })),
  );
}

export async function findQueryExport(db: DbOrTrx, companyId: string, capability: string): Promise<QueryExport | undefined> {
  return (await companyExports(db, companyId)).find((e) => e.name === capability)?.query;
}

export async function capabilityCatalog(db: DbOrTrx, companyId: string | null): Promise<Capability[]> {
  if (companyId === null) return [...PLATFORM_CAPABILITIES];
  const [exports, types] = await Promise.all([
    companyExports(db, companyId),
    db
      .selectFrom('object_types as t')
      .innerJoin('ontologies as o', 'o.id', 't.ontology_id')
      .select('t.api_name')
      .where('o.company_id', '=', companyId)
      .execute(),
  ]);
  const defined = new Set(types.map((t) => t.api_name));
  const exported = exports.map(
    ({ app, name, query }): Capability => ({
      name,
      source: 'export',
      app,
      title: query.title,
      description: query.description,
      input: Object.fromEntries(
        Object.entries(query.input).map(([param, p]) => [param, { type: p.type, required: p.required, description: p.description }]),
      ),
      // A query runs over its semantic type: one the company has not defined yet cannot run.
      runnable: defined.has(query.type),
      ...(defined.has(query.type) ? {} : { reason: `the object type ${query.type} is not defined in the company's ontology` }),
    }),
  );
  return [...PLATFORM_CAPABILITIES, ...exported];
}
