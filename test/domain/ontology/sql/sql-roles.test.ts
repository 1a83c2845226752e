import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../domain/deps.ts';
import { DomainError } from '../../../../domain/errors.ts';
import { findOntologyOfCompany } from '../../../../domain/ontology/repository.ts';
import { executeOntologySql } from '../../../../domain/ontology/sql/execute-ontology-sql.ts';
import { SqlGate } from '../../../../domain/ontology/sql/sql-gate.ts';
import { ensureSqlRole, MAX_ROLES_PER_CREDENTIAL, sweepSqlRoles } from '../../../../domain/ontology/sql/sql-roles.ts';
import type { Principal } from '../../../../domain/principal.ts';
import { newId } from '../../../../domain/security/random.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture } from '../../../support/ontology.ts';

// The lifecycle of ontology SQL's login roles (issue 28 leftovers): a bounded number per
// credential, a sweep of roles nobody can use, and no role work for a request the SQL gate refuses.

let database: TestDatabase;
const TYPES = ['race.A', 'race.B', 'race.C', 'race.D'];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const settings = (gate = new SqlGate({ maxRunning: 4, perCompany: 4, maxWaitMs: 10_000 })) => ({
  databaseUrl: database.url,
  statementTimeoutMs: 2000,
  backendNice: 0, // normal priority: see execute-ontology-sql.test.ts
  gate,
});
const deps = (gate?: SqlGate) => ({ db: database.db, clock: systemClock, ontologySql: settings(gate) });

/** An agent key of the fixture's developer restricted to `objectTypes`: each set of types is a role of its own. */
const agent = (f: OntologyFixture, objectTypes: string[]): Principal => ({
  ...(f.developer as Extract<Principal, { kind: 'key' }>),
  key: { id: newId('key'), displayPrefix: 'svc-dk-agent' },
  agent: { id: newId('agt'), restrictions: { operations: ['api:use-ontologies-read'], objectTypes, actionTypes: [] } },
});

/** Every non-empty set of the four types: fifteen. */
const EVERY_SET = Array.from({ length: 15 }, (_, i) => TYPES.filter((_, bit) => ((i + 1) >> bit) & 1));

const rolesOf = async (companyId: string) =>
  (await database.db.selectFrom('ontology_sql_roles').select('role_name').where('company_id', '=', companyId).execute()).map(
    (r) => r.role_name,
  );
const existing = async (names: string[]) => {
  if (names.length === 0) return [];
  const { rows } = await sql<{ rolname: string }>`SELECT rolname FROM pg_roles WHERE rolname = ANY(${names})`.execute(database.db);
  return rows.map((r) => r.rolname);
};
const allSqlRoles = async () => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_roles WHERE rolname LIKE 'svc_sql_%'`.execute(database.db);
  return rows[0]!.n;
};

describe('SQL role lifecycle', () => {
  it('agent keys of one account with fifteen distinct sets of types keep at most MAX_ROLES_PER_CREDENTIAL roles (each set made a role, never dropped)', async () => {
    const f = await insertCompanyWithDeveloper(database.db, 'cell-many-sets');
    await define(database.db, f, {
      types: TYPES.map((apiName) => ({ apiName, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } })),
    });
    const made = new Set<string>();
    for (const tables of EVERY_SET) {
      const res = await executeOntologySql(deps(), agent(f, tables), { query: `SELECT count(*) AS n FROM "${tables[0]}"` });
      expect(JSON.parse(res.json).rows).toEqual([[0]]);
      for (const name of await rolesOf(f.companyId)) made.add(name);
    }
    expect(made.size).toBe(EVERY_SET.length);
    const left = await rolesOf(f.companyId);
    expect(left).toHaveLength(MAX_ROLES_PER_CREDENTIAL);
    // The dropped ones are gone from PostgreSQL too, not only from the table.
    expect(await existing([...made])).toEqual(expect.arrayContaining(left));
    expect(await existing([...made])).toHaveLength(MAX_ROLES_PER_CREDENTIAL);
    // Many keys of one account with one set share its role: no new role per key or request.
    for (let i = 0; i < 5; i++) await executeOntologySql(deps(), agent(f, EVERY_SET.at(-1)!), { query: 'SELECT 1' });
    expect((await rolesOf(f.companyId)).sort()).toEqual(left.sort());
  });

  it('a request the SQL gate refuses makes no role (ensureSqlRole ran its DDL before the gate, on the service pool)', async () => {
    const f = await insertCompanyWithDeveloper(database.db, 'cell-refused');
    await define(database.db, f, {
      types: TYPES.map((apiName) => ({ apiName, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } })),
    });
    const gate = new SqlGate({ maxRunning: 1, perCompany: 1, maxWaitMs: 50 });
    const release = await gate.enter(f.companyId);
    const before = await allSqlRoles();
    try {
      const outcomes = await Promise.all(
        EVERY_SET.map((tables) =>
          executeOntologySql(deps(gate), agent(f, tables), { query: 'SELECT 1' }).then(
            () => 'answered',
            (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
          ),
        ),
      );
      expect(new Set(outcomes)).toEqual(new Set(['rate_limited']));
    } finally {
      release();
    }
    expect(await rolesOf(f.companyId)).toEqual([]);
    expect(await allSqlRoles()).toBe(before);
  });

  it('the next role made sweeps the roles of a removed license and of a deleted account (roles were never dropped)', async () => {
    const f = await insertCompanyWithDeveloper(database.db, 'cell-sweep');
    await define(database.db, f, {
      types: TYPES.map((apiName) => ({ apiName, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } })),
    });
    const schemaName = (await findOntologyOfCompany(database.db, f.companyId))!.schemaName;
    const member = async (name: string) => {
      const id = newId('acc');
      await database.db
        .insertInto('accounts')
        .values({ id, username: name, email: `${name}@sweep.example`, password_hash: null, status: 'active', locked_until: null })
        .execute();
      await database.db.insertInto('licenses').values({ account_id: id, company_id: f.companyId, role: 'member' }).execute();
      return id;
    };
    const roleFor = (accountId: string, kind: 'key' | 'session' | 'ticket' = 'key') =>
      ensureSqlRole(database.db, {
        companyId: f.companyId,
        schemaName,
        credential: { kind, accountId },
        tables: ['race.A'],
        statementTimeoutMs: 2000,
      });
    const [leaver, deleted, stayer, justLeft] = [
      await member('leaver'),
      await member('deleted'),
      await member('stayer'),
      await member('left'),
    ];
    const roles = {
      leaver: await roleFor(leaver, 'session'),
      deleted: await roleFor(deleted),
      stayer: await roleFor(stayer),
      justLeft: await roleFor(justLeft, 'ticket'),
    };
    await database.db.deleteFrom('licenses').where('account_id', 'in', [leaver, justLeft]).execute();
    await database.db.deleteFrom('licenses').where('account_id', '=', deleted).execute();
    await database.db.deleteFrom('accounts').where('id', '=', deleted).execute();
    // Past the hour's grace for an account without a license; justLeft's role is still within it.
    await database.db
      .updateTable('ontology_sql_roles')
      .set({ created_at: new Date(Date.now() - 2 * 3600_000) })
      .where('account_id', '=', leaver)
      .execute();

    await roleFor(await member('newcomer'));
    const names = Object.values(roles).map((r) => r.name);
    expect(await existing(names)).toEqual(expect.arrayContaining([roles.stayer.name, roles.justLeft.name]));
    expect(await existing(names)).toHaveLength(2);
    expect(await rolesOf(f.companyId)).not.toContain(roles.leaver.name);
    expect(await rolesOf(f.companyId)).not.toContain(roles.deleted.name);
    // A sweep with nothing to do drops nothing.
    expect(await sweepSqlRoles(database.db)).toEqual([]);
  });

  it('a deleted company’s roles go with the next sweep', async () => {
    const f = await insertCompanyWithDeveloper(database.db, 'cell-gone');
    await define(database.db, f, {
      types: TYPES.map((apiName) => ({ apiName, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } })),
    });
    await executeOntologySql(deps(), f.developer, { query: 'SELECT 1' });
    const [name] = await rolesOf(f.companyId);
    expect(await existing([name!])).toEqual([name]);
    // As an operator would, in SQL: the service has no route that deletes a company.
    await sql`UPDATE ontology_sql_roles SET company_id = ${newId('org')} WHERE role_name = ${name}`.execute(database.db);
    expect(await sweepSqlRoles(database.db)).toEqual([name]);
    expect(await existing([name!])).toEqual([]);
  });
});
