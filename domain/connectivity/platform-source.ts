import { sql } from 'kysely';
import { ONTOLOGY_RID_PREFIX } from '../../schemas/ontology.ts';
import { platformSyncWorkflowId } from '../../schemas/workflow-keys.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import { definePlatformTypes, PLATFORM_TYPES, type PlatformEntity, storedKeys, upsertObjects, writeEdits } from '../ontology/index.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { companyForPipelines } from './repository.ts';

// The platform data source (spec G `POST /api/v1/ontologies/{ns}/datasources/platform/sync`): what
// svc knows of the company — its members, its apps and their daily log counts — copied into the
// company's read-only `platform.*` object types by a Temporal workflow (platformDataSync), page by
// page through the one writer, so change triggers, subscriptions and ontology SQL see it as any
// other data. Each run is a full refresh: objects whose source row is gone are deleted at its end.
// Only what the company's developers may see already is copied; never a password hash, key,
// token, lock state or another company's row.

/** Rows per page: one page is one activity and one transaction. */
export const PLATFORM_PAGE_SIZE = 500;

/** Asks for a sync of the company's platform data (the run starts after the commit, through the outbox). */
export async function requestPlatformSync(db: DbOrTrx, principal: Principal, ontology: string) {
  const namespace = ontology.startsWith(ONTOLOGY_RID_PREFIX) ? ontology.slice(ONTOLOGY_RID_PREFIX.length) : ontology;
  const company = await companyForPipelines(db, principal, namespace);
  await enqueue(db, { topic: 'platform-sync.requested', key: newId('psr'), payload: { companyId: company.id } });
  return {
    status: 'REQUESTED' as const,
    workflowId: platformSyncWorkflowId(company.id),
    objectTypes: Object.values(PLATFORM_TYPES).map((t) => t.apiName),
  };
}

/** The platform types made or brought to their current definition, before the first page. */
export const preparePlatformTypes = (db: Db, companyId: string) => db.transaction().execute((trx) => definePlatformTypes(trx, companyId));

type Row = Record<string, unknown> & { key: string };

/** One page of an entity's rows after `after` (in key order), as the type's objects. */
async function readRows(db: DbOrTrx, companyId: string, entity: PlatformEntity, after: string, limit: number): Promise<Row[]> {
  switch (entity) {
    case 'member': {
      const rows = await db
        .selectFrom('licenses as l')
        .innerJoin('accounts as a', 'a.id', 'l.account_id')
        .select(['a.id', 'a.username', 'a.display_name', 'a.email', 'a.status', 'l.role', 'l.admin', 'l.external_id', 'l.created_at'])
        .where('l.company_id', '=', companyId)
        .where('a.id', '>', after)
        .orderBy('a.id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        key: r.id,
        accountId: r.id,
        username: r.username,
        displayName: r.display_name,
        email: r.email,
        role: r.role,
        admin: r.admin,
        status: r.status,
        externalId: r.external_id,
        memberSince: r.created_at.toISOString(),
      }));
    }
    case 'app': {
      const rows = await db
        .selectFrom('apps')
        .select(['id', 'slug', 'production_version_id', 'test_version_id', 'created_by', 'created_at'])
        .where('company_id', '=', companyId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        key: r.id,
        appId: r.id,
        slug: r.slug,
        published: r.production_version_id !== null,
        productionVersionId: r.production_version_id,
        testVersionId: r.test_version_id,
        createdBy: r.created_by,
        createdAt: r.created_at.toISOString(),
      }));
    }
    case 'appLogDay': {
      // The key joins the row's own key parts with a separator no slug, day or kind holds.
      const key = sql<string>`d.app_id || '/' || d.day::text || '/' || d.kind || '/' || d.name`;
      const rows = await db
        .selectFrom('app_log_daily as d')
        .innerJoin('apps as a', 'a.id', 'd.app_id')
        .select([key.as('key'), 'd.app_id', 'a.slug', sql<string>`d.day::text`.as('day'), 'd.kind', 'd.name', 'd.count'])
        .where('a.company_id', '=', companyId)
        .where(key, '>', after)
        .orderBy(key)
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        key: r.key,
        id: r.key,
        appId: r.app_id,
        appSlug: r.slug,
        day: r.day,
        kind: r.kind,
        name: r.name,
        count: Number(r.count),
      }));
    }
  }
}

/**
 * Copies one page of an entity (the rows after `after`) into its type through the one writer, in
 * one transaction; answers where the next page starts (null: this was the last). A retried page
 * writes the same values again: an unchanged object is no change.
 */
export async function syncPlatformPage(
  db: Db,
  input: { companyId: string; entity: PlatformEntity; after: string; pageSize?: number },
): Promise<{ next: string | null; rows: number }> {
  const limit = input.pageSize ?? PLATFORM_PAGE_SIZE;
  const rows = await readRows(db, input.companyId, input.entity, input.after, limit);
  if (rows.length > 0) {
    await db.transaction().execute((trx) =>
      upsertObjects(trx, {
        companyId: input.companyId,
        objectType: PLATFORM_TYPES[input.entity].apiName,
        operationId: newId('ope'),
        objects: rows.map(({ key: _key, ...object }) => object),
        platformWrite: true,
      }),
    );
  }
  return { next: rows.length < limit ? null : rows.at(-1)!.key, rows: rows.length };
}

/** Deletes the entity's objects whose source row is gone (a member who left, an app deleted, a day past retention). */
export async function prunePlatformObjects(db: Db, input: { companyId: string; entity: PlatformEntity }): Promise<{ deleted: number }> {
  const type = PLATFORM_TYPES[input.entity];
  const stored = await storedKeys(db, input.companyId, type.apiName);
  const live = new Set<string>();
  for (let after = ''; ; ) {
    const rows = await readRows(db, input.companyId, input.entity, after, 10_000);
    for (const r of rows) live.add(r.key);
    if (rows.length < 10_000) break;
    after = rows.at(-1)!.key;
  }
  const gone = stored.filter((k) => !live.has(k));
  if (gone.length === 0) return { deleted: 0 };
  await db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId: input.companyId,
      accountId: null,
      operationId: newId('ope'),
      actionTypeRid: null,
      edits: gone.map((primaryKey) => ({ type: 'delete' as const, objectType: type.apiName, primaryKey })),
      platformWrite: true,
    }),
  );
  return { deleted: gone.length };
}
