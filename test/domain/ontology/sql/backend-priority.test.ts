import { existsSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerBackendPriority } from '../../../../domain/ontology/sql/backend-priority.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';

// Ontology SQL's backends at the lowest CPU priority (issue 28), and only backends proven to be
// the local end of the connection: the test's PostgreSQL is a process of this machine.

let database: TestDatabase;
let proxy: TcpProxy;
const clients: pg.Client[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const url = new URL(database.url);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
});
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await proxy.close();
  await database.drop();
});

async function connect(url: string) {
  const client = new pg.Client({ connectionString: url });
  clients.push(client);
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { client, pid: rows[0]!.pid };
}

/** The nice of the process's autogroup ("/autogroup-123 nice 19"). */
const autogroupNice = (pid: number) => Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1]);

describe('lowerBackendPriority', () => {
  it("renices the connection's own backend to 19, and no other backend", async () => {
    const bystander = await connect(database.url);
    const { client, pid } = await connect(database.url);
    expect([getPriority(pid), getPriority(bystander.pid)]).toEqual([0, 0]);
    expect(await lowerBackendPriority(client, 19)).toBe(true);
    expect([getPriority(pid), getPriority(bystander.pid)]).toEqual([19, 0]);
    // Each backend is a session (setsid) and so, with autogroup scheduling, a CPU group of its own:
    // the group's nice is what decides its share against the service's process.
    if (existsSync(`/proc/${pid}/autogroup`)) expect([autogroupNice(pid), autogroupNice(bystander.pid)]).toEqual([19, 0]);
    // The backend still answers, at its new priority.
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('leaves the backend alone with nice 0 (SVC_SQL_BACKEND_NICE=0)', async () => {
    const { client, pid } = await connect(database.url);
    expect(await lowerBackendPriority(client, 0)).toBe(false);
    expect(getPriority(pid)).toBe(0);
  });

  it("leaves a backend alone when the connection's other end is not that process (a proxy, as a server elsewhere would be)", async () => {
    // PostgreSQL reports a real local pid here, but this socket's peer is the proxy: the proof fails.
    const { client, pid } = await connect(proxy.route(database.url));
    expect(await lowerBackendPriority(client, 19)).toBe(false);
    expect(getPriority(pid)).toBe(0);
    if (existsSync(`/proc/${pid}/autogroup`)) expect(autogroupNice(pid)).toBe(0);
  });
});
