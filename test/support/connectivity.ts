import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import type { ConnectivitySettings } from '../../domain/connectivity/index.ts';
import { connectDatabase } from '../../domain/db/connect.ts';
import { createSecretBox } from '../../domain/security/index.ts';
import { urlFor } from './postgres-urls.ts';

/** Connectivity as tests run it: a fresh key, sources on loopback allowed (the second database, local servers). */
export const testConnectivity = (): ConnectivitySettings => ({
  secrets: createSecretBox([{ id: 'test', key: randomBytes(32) }]),
  privateNetworks: true,
});

export interface SourceDatabase {
  /** The connection string a company would give (with its own login and password). */
  url: string;
  /** The password in it: what must never be stored or logged in clear. */
  password: string;
  /** The source's owner connection, to make tables and rows. */
  client: pg.Client;
  drop(): Promise<void>;
}

/**
 * A company's own PostgreSQL, as a second database on the embedded server with a login of its
 * own (a random password), for syncs to read.
 */
export async function createSourceDatabase(): Promise<SourceDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  const name = `svc_source_${randomBytes(6).toString('hex')}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const admin = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
  try {
    await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
    await sql`CREATE ROLE ${sql.id(name)} LOGIN PASSWORD ${sql.lit(password)}`.execute(admin);
    await sql`ALTER DATABASE ${sql.id(name)} OWNER TO ${sql.id(name)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
  const owner = new URL(urlFor(adminUrl, name));
  owner.username = name;
  owner.password = password;
  const client = new pg.Client({ connectionString: owner.toString() });
  await client.connect();
  return {
    url: owner.toString(),
    password,
    client,
    async drop() {
      await client.end();
      const again = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
      await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(again);
      await sql`DROP ROLE IF EXISTS ${sql.id(name)}`.execute(again);
      await again.destroy();
    },
  };
}

/** An exclusive lock on a source table, held by a connection of its own until released: a sync's next read waits on it. */
export async function lockSourceTable(source: SourceDatabase, table: string) {
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}
