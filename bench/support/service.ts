// A real service on an embedded PostgreSQL of its own (API role), with an operator and one
// developer of the company `cell-bench`, for the benches that go through HTTP.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Logger, pino } from 'pino';
import { loadConfig } from '../../config.ts';
import { createSession } from '../../domain/sessions/index.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded-postgres.ts';
import { type Role, type RunningService, startService } from '../../service.ts';

const PASSWORD = 'bench-password-1';

export interface BenchService {
  svc: RunningService;
  /** A temporary folder, removed by stop(). */
  dataDir: string;
  /** A developer key of cell-bench. */
  developerKey: string;
  /** The operator's key. */
  operatorKey: string;
  call(method: string, p: string, body?: unknown, key?: string): Promise<any>;
  stop(): Promise<void>;
}

/**
 * Role api by default; role all adds the worker, the relay and the embedded Temporal server (no
 * Web UI). Silent unless given a logger (the HTTP benches log every request, as production does).
 */
export async function startBenchService(opts: { role?: Role; logger?: Logger; env?: Record<string, string> } = {}): Promise<BenchService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-'));
  await fs.chmod(dataDir, 0o755); // PostgreSQL runs as `postgres` when we are root
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg') });
  const svc = await startService(
    loadConfig({
      PORT: '0',
      // Through the socket, as `npm start` reaches its embedded cluster.
      DATABASE_URL: pg.socketUrl ?? pg.url,
      SVC_DATA_DIR: dataDir,
      SVC_TEMPORAL_UI_PORT: 'off',
      SVC_OPERATOR_LOGIN: 'ops',
      SVC_OPERATOR_PASSWORD: PASSWORD,
      ...opts.env,
    }),
    { logger: opts.logger ?? pino({ level: 'silent' }), role: opts.role ?? 'api' },
  );
  const call = async (method: string, p: string, body?: unknown, key?: string) => {
    const res = await fetch(svc.url + p, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data: any; error?: unknown };
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json.error)}`);
    return json.data;
  };
  const stop = async () => {
    await svc.stop();
    await pg.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    const ops = (await call('POST', '/api/v1/developer/password-tokens', { login: 'ops', password: PASSWORD })).key;
    await call('POST', '/api/v1/admin/organizations', { cellId: 'cell-bench', name: 'Bench' }, ops);
    const developer = { username: 'dev', email: 'dev@bench.test', password: PASSWORD, emailVerified: true };
    await call('POST', '/api/v1/admin/users', { ...developer, licenses: [{ cellId: 'cell-bench', role: 'developer' }] }, ops);
    const developerKey = (await call('POST', '/api/v1/developer/password-tokens', { login: 'dev', password: PASSWORD })).key;
    return { svc, dataDir, developerKey, operatorKey: ops, call, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** An app of cell-bench with these files, uploaded and put on both channels; answers its production address. */
export async function deployBenchApp(bench: BenchService, slug: string, files: { path: string; encoding: 'utf8'; content: string }[]) {
  const appPath = `/api/v1/developer/apps/cell-bench/${slug}`;
  const manifest = { manifestVersion: 1, slug, version: '1.0.0', title: slug };
  await bench.call('POST', `${appPath}/versions`, { manifest, files }, bench.developerKey);
  await bench.call('POST', `${appPath}/channels/test`, {}, bench.developerKey);
  await bench.call('POST', `${appPath}/channels/production`, {}, bench.developerKey);
  return `${bench.svc.addresses.productionBase}/cell-bench/apps/${slug}`;
}

/** The app ticket the developer's entry page carries, opened from a web session as a browser would. */
export async function benchTicket(bench: BenchService): Promise<string> {
  const address = await deployBenchApp(bench, 'ticketed', [
    { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>t</title>' },
  ]);
  const developer = await bench.svc.deps.db.selectFrom('accounts').select('id').where('username', '=', 'dev').executeTakeFirstOrThrow();
  const session = await createSession(bench.svc.deps.db, developer.id, undefined);
  const html = await (await fetch(address, { headers: { cookie: `svc_session=${session.token}` } })).text();
  const ticket = /<meta name="svc-app-ticket" content="([^"]+)">/.exec(html)?.[1];
  if (!ticket) throw new Error(`no ticket in the entry page: ${html.slice(0, 200)}`);
  return ticket;
}
