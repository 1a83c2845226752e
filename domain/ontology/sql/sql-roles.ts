import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { BoundedCache } from '../../cache/index.ts';
import { connectDatabase, type Db, type DbOrTrx } from '../../db/index.ts';
import { DomainError } from '../../errors.ts';

// The PostgreSQL roles ontology SQL runs as. One LOGIN role per company, credential (its kind and
// account) and set of readable object types, made on first use and granted USAGE on the company's
// schema and SELECT on exactly those tables. A query connects AS that role (never SET ROLE from the
// service's own login): logged in as the SQL role, there is no other role to switch to. Because
// credentials never share a role, none can see another's queries in pg_stat_activity or cancel
// them with pg_cancel_backend (both need the same role); the parser refuses both anyway.
//
// The role carries its limits (ALTER ROLE … SET), in force from its login on, as a second line
// behind the transaction's own SET LOCAL (execute-ontology-sql.ts): statement, lock and idle
// timeouts, work_mem, a read-only default and its schema as search_path; temp_file_limit too when
// the service's database user is a superuser (only a superuser may set it).
//
// Lifecycle (issue 28): the roles are bounded by what the company controls. A credential keeps at
// most MAX_ROLES_PER_CREDENTIAL sets of types (an agent key's restrictions, a ticket's app, types
// defined since): making one more drops its oldest. Each role made also sweeps the roles nobody can
// use any more: their company or account is gone, or the account holds no license in the company
// (after an hour's grace: a ticket or session through a share is made again on its next query).
// So the count is at most accounts that may query the company × 4 kinds × the cap, however many
// keys, agent keys or requests there are. Role DDL runs only for a query the SQL gate admitted, on
// a connection of its own (`sqlRoleOf`), never on the service's pool.
//
// Roles are cluster-wide: the name hashes the database name too, so databases of one cluster never
// share a role. Making them needs CREATEROLE (or a superuser, as the embedded PostgreSQL is).

/** Queries of one role running at once across every process (each holds a connection); more are refused (rate_limited). */
export const SQL_ROLE_CONNECTIONS = 10;
/** Memory a query's sorts and hashes may use before spilling to temporary files. */
export const SQL_WORK_MEM = '16MB';
/** Temporary files one query may write (a sort or a materialized set that outgrew work_mem). */
export const SQL_TEMP_FILE_LIMIT = '256MB';
/** Sets of types one credential (company, kind, account) keeps a role for at once; one more drops its oldest. */
export const MAX_ROLES_PER_CREDENTIAL = 4;
/** How long a role of an account without a license in its company is kept (a share's ticket or session may still use it). */
const UNLICENSED_GRACE = '1 hour';

/** Whose queries a role runs: the kind of credential (an agent's key is a kind of its own) and its account. */
export interface SqlCredential {
  kind: 'key' | 'agent' | 'session' | 'ticket';
  accountId: string;
}

export interface SqlRole {
  name: string;
  password: string;
}

/** `svc_sql_<hash>`: short, identifier-safe, one per database, schema, credential and set of tables. */
export function sqlRoleName(database: string, schemaName: string, credential: SqlCredential, tables: readonly string[]): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([database, schemaName, credential.kind, credential.accountId, [...tables].sort()]))
    .digest('hex');
  return `svc_sql_${hash.slice(0, 40)}`;
}

export interface SqlRoleInput {
  companyId: string;
  schemaName: string;
  credential: SqlCredential;
  tables: readonly string[];
  statementTimeoutMs: number;
}

/** Roles this process set up or found, by database and key; each is checked again at its use (login, grants). */
const rememberedRoles = new BoundedCache<string, SqlRole>(10_000);

/**
 * The role for `input`: from this process's memory, else found or made on a connection of its own
 * to the service's database (`databaseUrl`), so a flood of SQL requests never takes the service's
 * pool. Call it only with a slot of the SQL gate held. `fresh`: the remembered role failed (its
 * login or grants are gone): look again.
 */
export async function sqlRoleOf(databaseUrl: string, input: SqlRoleInput, fresh = false): Promise<SqlRole> {
  const { kind, accountId } = input.credential;
  const key = JSON.stringify([databaseUrl, input.schemaName, kind, accountId, [...input.tables].sort()]);
  const remembered = fresh ? undefined : rememberedRoles.get(key);
  if (remembered) return remembered;
  const admin = connectDatabase({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    const role = await ensureSqlRole(admin, input);
    rememberedRoles.set(key, role);
    return role;
  } finally {
    await admin.destroy();
  }
}

/**
 * The role that may read exactly `tables` (apiNames) of the company's schema for one credential,
 * made on first use. Runs in a transaction of its own (the query's transaction is read-only); role
 * DDL waits for any other on an advisory lock: each GRANT or REVOKE rewrites a schema's and its
 * tables' ACL rows, which two transactions cannot update at once (PostgreSQL: "tuple concurrently
 * updated"), and the sweep touches every company's schema.
 */
export async function ensureSqlRole(db: Db, input: SqlRoleInput): Promise<SqlRole> {
  const tables = [...input.tables].sort();
  const { rows } = await sql<{ database: string }>`SELECT current_database() AS database`.execute(db);
  const name = sqlRoleName(rows[0]!.database, input.schemaName, input.credential, tables);
  const usable = await findUsableRole(db, name, input.schemaName);
  if (usable) return usable;

  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended('sql-roles', 0))`.execute(trx);
    const again = await findUsableRole(trx, name, input.schemaName);
    if (again) return again;
    const { superuser } = await assertMayCreateRoles(trx);
    await sweepSqlRoles(trx);
    await dropOldestOfCredential(trx, input, name);
    // Our own random hex (never user input), as a literal: CREATE ROLE takes no bind parameters.
    const password = randomBytes(24).toString('hex');
    const exists = await roleExists(trx, name);
    // NOINHERIT and no memberships: the role has exactly the grants below (and PUBLIC's).
    await sql`${sql.raw(exists ? 'ALTER' : 'CREATE')} ROLE ${sql.id(name)} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT ${sql.lit(SQL_ROLE_CONNECTIONS)} PASSWORD ${sql.lit(password)}`.execute(
      trx,
    );
    const timeout = sql.lit(`${input.statementTimeoutMs}ms`);
    const settings = [
      sql`statement_timeout = ${timeout}`,
      sql`lock_timeout = ${timeout}`,
      sql`idle_in_transaction_session_timeout = ${timeout}`,
      sql`work_mem = ${sql.lit(SQL_WORK_MEM)}`,
      sql`max_parallel_workers_per_gather = 0`,
      sql`default_transaction_read_only = on`,
      sql`search_path = ${sql.id(input.schemaName)}`,
      ...(superuser ? [sql`temp_file_limit = ${sql.lit(SQL_TEMP_FILE_LIMIT)}`] : []),
    ];
    for (const setting of settings) await sql`ALTER ROLE ${sql.id(name)} SET ${setting}`.execute(trx);
    await sql`GRANT USAGE ON SCHEMA ${sql.id(input.schemaName)} TO ${sql.id(name)}`.execute(trx);
    for (const table of tables) await sql`GRANT SELECT ON ${sql.id(input.schemaName, table)} TO ${sql.id(name)}`.execute(trx);
    const record = {
      object_types: tables,
      password,
      schema_name: input.schemaName,
      credential_kind: input.credential.kind,
      account_id: input.credential.accountId,
      created_at: new Date(),
    };
    await trx
      .insertInto('ontology_sql_roles')
      .values({ role_name: name, company_id: input.companyId, ...record })
      .onConflict((c) => c.column('role_name').doUpdateSet(record))
      .execute();
    return { name, password };
  });
}

/**
 * Drops the roles nobody can use any more: their company or account is gone, or the account holds
 * no license in the company and the role is older than the grace. Answers the roles dropped.
 */
export async function sweepSqlRoles(trx: DbOrTrx): Promise<string[]> {
  const { rows } = await sql<{ role_name: string; schema_name: string }>`
    SELECT r.role_name, r.schema_name FROM ontology_sql_roles r
    WHERE NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
       OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = r.account_id)
       OR (NOT EXISTS (SELECT 1 FROM licenses l WHERE l.company_id = r.company_id AND l.account_id = r.account_id)
           AND r.created_at < now() - ${sql.lit(UNLICENSED_GRACE)}::interval)`.execute(trx);
  for (const row of rows) await dropSqlRole(trx, row.role_name, row.schema_name);
  return rows.map((r) => r.role_name);
}

/** Makes room for one more set of types of this credential: drops its oldest roles beyond the cap. */
async function dropOldestOfCredential(trx: DbOrTrx, input: SqlRoleInput, making: string): Promise<void> {
  const roles = await trx
    .selectFrom('ontology_sql_roles')
    .select(['role_name', 'schema_name'])
    .where('company_id', '=', input.companyId)
    .where('credential_kind', '=', input.credential.kind)
    .where('account_id', '=', input.credential.accountId)
    .where('role_name', '<>', making)
    .orderBy('created_at', 'desc')
    .execute();
  for (const old of roles.slice(MAX_ROLES_PER_CREDENTIAL - 1)) await dropSqlRole(trx, old.role_name, old.schema_name);
}

/**
 * Revokes the role's grants (we are their grantor: DROP OWNED BY would need the role's own
 * privileges), drops it and forgets it. A query running as it finishes; its next login fails and
 * the process sets up its role again.
 */
async function dropSqlRole(trx: DbOrTrx, name: string, schemaName: string): Promise<void> {
  if (await roleExists(trx, name)) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = ${schemaName}`.execute(trx);
    if (rows[0]!.n > 0) {
      await sql`REVOKE ALL ON ALL TABLES IN SCHEMA ${sql.id(schemaName)} FROM ${sql.id(name)}`.execute(trx);
      await sql`REVOKE ALL ON SCHEMA ${sql.id(schemaName)} FROM ${sql.id(name)}`.execute(trx);
    }
    await sql`DROP ROLE ${sql.id(name)}`.execute(trx);
  }
  await trx.deleteFrom('ontology_sql_roles').where('role_name', '=', name).execute();
}

/**
 * The recorded role when it exists with its grants on every table. A role dropped by an operator,
 * or a table made again (its grants go with it), is set up again.
 */
async function findUsableRole(db: DbOrTrx, name: string, schemaName: string): Promise<SqlRole | undefined> {
  const { rows } = await sql<{ password: string; usable: boolean | null }>`
    SELECT r.password,
           CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r.role_name)
                THEN has_schema_privilege(r.role_name, ${schemaName}, 'USAGE')
                     AND (SELECT coalesce(bool_and(has_table_privilege(r.role_name, format('%I.%I', ${schemaName}::text, t), 'SELECT')), true)
                          FROM unnest(r.object_types) AS t)
           END AS usable
    FROM ontology_sql_roles r WHERE r.role_name = ${name}`.execute(db);
  const row = rows[0];
  return row?.usable ? { name, password: row.password } : undefined;
}

async function roleExists(db: DbOrTrx, name: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_roles WHERE rolname = ${name}`.execute(db);
  return rows[0]!.n > 0;
}

/** The DATABASE_URL user needs CREATEROLE: say so rather than fail with PostgreSQL's "permission denied". */
async function assertMayCreateRoles(db: DbOrTrx): Promise<{ superuser: boolean }> {
  const { rows } = await sql<{
    may: boolean;
    superuser: boolean;
  }>`SELECT (rolsuper OR rolcreaterole) AS may, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`.execute(db);
  if (rows[0]?.may) return { superuser: rows[0].superuser };
  throw new DomainError(
    'service_unavailable',
    'Ontology SQL is not available: the database user of DATABASE_URL needs the CREATEROLE attribute (ALTER ROLE <user> CREATEROLE).',
    { details: { reason: 'database_user_lacks_createrole' } },
  );
}
