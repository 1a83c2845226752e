import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPlatformSync } from '../../domain/connectivity/index.ts';
import { systemClock } from '../../domain/deps.ts';
import {
  applyAction,
  defineActionTypes,
  defineObjectTypes,
  editObjects,
  findObjectTypeRecord,
  findOntologyOfCompany,
  importObjects,
  objectTable,
} from '../../domain/ontology/index.ts';
import { newId } from '../../domain/security/index.ts';
import { platformSyncWorkflowId, runLabels, TASK_QUEUE } from '../../workflows/contract.ts';
import type { platformDataSync } from '../../workflows/index.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../support/ontology.ts';
import { startWorkflowTestEnv, type WorkflowTestEnv } from '../support/workflow-env.ts';

// The platform data source through the real SDK: a company's members, apps and daily app log counts
// become its read-only platform.* objects through the one writer, page by page; another company's
// rows and every secret stay out; a later run removes what is gone; nobody else writes those types.

let started: WorkflowTestEnv;
let acme: OntologyFixture;
let globex: OntologyFixture;
const HASH = 'scrypt$platform-sync-secret-hash';
const deps = () => ({ db: started.database.db, clock: systemClock });

async function insertMember(companyId: string, username: string) {
  const id = newId('acc');
  await started.database.db
    .insertInto('accounts')
    .values({ id, username, email: `${username}@example.com`, password_hash: HASH, status: 'active', locked_until: null })
    .execute();
  await started.database.db.insertInto('licenses').values({ account_id: id, company_id: companyId, role: 'member' }).execute();
  return id;
}

async function insertApp(f: OntologyFixture, slug: string) {
  const id = newId('app');
  await started.database.db
    .insertInto('apps')
    .values({ id, namespace: f.cellId, slug, company_id: f.companyId, created_by: f.developer.account.id })
    .execute();
  return id;
}

/** Runs the company's sync as the outbox relay starts it, to its end. */
async function runSync(f: OntologyFixture) {
  return started.env.client.workflow.execute<typeof platformDataSync>('platformDataSync', {
    taskQueue: TASK_QUEUE,
    workflowId: platformSyncWorkflowId(f.companyId),
    args: [{ companyId: f.companyId }],
    ...runLabels({ kind: 'platform-sync', cellId: f.cellId }),
  });
}

async function objects(f: OntologyFixture, apiName: string) {
  const db = started.database.db;
  const ontology = (await findOntologyOfCompany(db, f.companyId))!;
  const type = (await findObjectTypeRecord(db, ontology.id, apiName))!;
  const rows = await sql<Record<string, unknown>>`SELECT * FROM ${objectTable(ontology, type)} ORDER BY 1`.execute(db);
  return rows.rows;
}

let memberId: string;
let appId: string;

beforeAll(async () => {
  started = await startWorkflowTestEnv();
  const db = started.database.db;
  acme = await insertCompanyWithDeveloper(db, 'cell-acme');
  globex = await insertCompanyWithDeveloper(db, 'cell-globex');
  await define(db, acme, SALES);
  memberId = await insertMember(acme.companyId, 'mia');
  await insertMember(globex.companyId, 'gia');
  appId = await insertApp(acme, 'crm');
  await insertApp(globex, 'globex-crm');
  // 600 days of usage: more than one page.
  await sql`INSERT INTO app_log_daily (app_id, day, kind, name, count)
    SELECT ${appId}, date '2025-01-01' + i, 'usage', 'open', i FROM generate_series(0, 599) AS i`.execute(db);
}, 120_000);
afterAll(async () => {
  await started?.stop();
});

describe('platform data source', () => {
  it('asks for the run through the outbox, named by the company', async () => {
    const db = started.database.db;
    const answer = await db.transaction().execute((trx) => requestPlatformSync(trx, acme.developer, 'cell-acme'));
    expect(answer).toEqual({
      status: 'REQUESTED',
      workflowId: `platform-sync:${acme.companyId}`,
      objectTypes: ['platform.Member', 'platform.App', 'platform.AppLogDay'],
    });
    const intent = await db
      .selectFrom('outbox')
      .select(['payload'])
      .where('topic', '=', 'platform-sync.requested')
      .executeTakeFirstOrThrow();
    expect(intent.payload).toEqual({ companyId: acme.companyId });
    await expect(db.transaction().execute((trx) => requestPlatformSync(trx, acme.developer, 'cell-globex'))).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('copies the company’s members, apps and log days, never another company’s rows nor a secret', async () => {
    const result = await runSync(acme);
    expect(result).toEqual({
      member: { rows: 2, deleted: 0 },
      app: { rows: 1, deleted: 0 },
      appLogDay: { rows: 600, deleted: 0 },
    });
    const members = await objects(acme, 'platform.Member');
    expect(members.map((m) => m.username).sort()).toEqual(['dev-cell-acme', 'mia']);
    expect(members.find((m) => m.accountId === memberId)).toMatchObject({ role: 'member', admin: false, status: 'active' });
    expect(await objects(acme, 'platform.App')).toMatchObject([{ appId, slug: 'crm', published: false }]);
    const days = await objects(acme, 'platform.AppLogDay');
    expect(days).toHaveLength(600);
    expect(days.find((d) => d.id === `${appId}/2025-01-11/usage/open`)).toMatchObject({ appSlug: 'crm', kind: 'usage', count: 10 });
    const everything = JSON.stringify([members, await objects(acme, 'platform.App'), days]);
    for (const other of ['gia', 'globex-crm', globex.developer.account.id, HASH]) expect(everything).not.toContain(other);
    // Written through the one writer: each object has its edits-history row, by no account.
    const edits = await started.database.db
      .selectFrom('ontology_edits')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('account_id', 'is', null)
      .where('primary_key', '=', memberId)
      .executeTakeFirstOrThrow();
    expect(edits.n).toBe(1);
  });

  it('a later run changes nothing that did not change and removes what is gone', async () => {
    const db = started.database.db;
    await db.deleteFrom('licenses').where('account_id', '=', memberId).execute();
    await db.deleteFrom('app_log_daily').where('app_id', '=', appId).where('day', '>=', '2026-01-01').execute();
    const result = await runSync(acme);
    expect(result.member).toEqual({ rows: 1, deleted: 1 });
    expect(result.appLogDay.deleted).toBe(600 - result.appLogDay.rows);
    expect(result.appLogDay.rows).toBeLessThan(600);
    expect((await objects(acme, 'platform.Member')).map((m) => m.username)).toEqual(['dev-cell-acme']);
    // The unchanged app was written again with the same values: no new revision.
    expect((await objects(acme, 'platform.App'))[0]!.__rev).toBe(1);
  });

  it('keeps platform.* types read-only: no definition, direct edit, import or action writes them', async () => {
    const refused = { code: 'object_type_read_only', details: { objectType: 'platform.Member' } };
    const inTrx = <T>(fn: (d: ReturnType<typeof deps>) => Promise<T>) =>
      started.database.db.transaction().execute((trx) => fn({ db: trx, clock: systemClock }));
    await expect(
      inTrx((d) =>
        defineObjectTypes(d, acme.developer, 'cell-acme', {
          types: [{ apiName: 'platform.Member', primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } }],
        }),
      ),
    ).rejects.toMatchObject(refused);
    await expect(
      inTrx((d) =>
        editObjects(d, acme.developer, 'cell-acme', {
          edits: [{ type: 'modify', objectType: 'platform.Member', primaryKey: acme.developer.account.id, properties: { role: 'admin' } }],
        }),
      ),
    ).rejects.toMatchObject(refused);
    await expect(
      inTrx((d) =>
        importObjects(d, acme.developer, {
          ontology: 'cell-acme',
          objectType: 'platform.Member',
          mode: 'upsert',
          objects: [{ accountId: 'acc_x', username: 'x' }],
        }),
      ),
    ).rejects.toMatchObject(refused);
    await inTrx((d) =>
      defineActionTypes(d, acme.developer, 'cell-acme', {
        actionTypes: [
          {
            apiName: 'platform.promote',
            parameters: { who: { dataType: { type: 'objectReference', objectType: 'platform.Member' } } },
            edits: [{ type: 'modifyObject', object: 'who', properties: { role: { value: 'admin' } } }],
          },
        ],
      }),
    );
    await expect(
      inTrx((d) =>
        applyAction(d, { principal: acme.developer, app: null }, 'cell-acme', 'platform.promote', {
          parameters: { who: acme.developer.account.id },
          options: { mode: 'VALIDATE_AND_EXECUTE', returnEdits: 'NONE' },
        }),
      ),
    ).rejects.toMatchObject(refused);
    expect((await objects(acme, 'platform.Member'))[0]).toMatchObject({ role: 'developer', __rev: 1 });
  });
});
