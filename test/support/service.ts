import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { AnyRoute } from '../../api/http/route.ts';
import { routes as productRoutes } from '../../api/routes.ts';
import { loadConfig } from '../../config.ts';
import type { Clock } from '../../domain/deps.ts';
import { type Role, type RunningService, startService } from '../../service.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestService extends RunningService {
  database: TestDatabase;
  /** SVC_COMPANY_ROOT: a temporary folder (made by the first step that needs it), removed on close. */
  companyRoot: string;
  /** Every log line the service wrote, parsed. */
  logs: Record<string, unknown>[];
  call(
    method: string,
    path: string,
    init?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** The real service on a loopback port over a database of its own. */
export const TEST_OPERATOR = { login: 'operator', password: 'operator-password-1' };
/** An HTTP service the helpers of test/support can drive: this process's, or one of a cluster's processes. */
export type HttpService = Pick<TestService, 'call' | 'addresses'>;

/** `call` on the service at `url`: JSON in, the body parsed as JSON when it is JSON. */
export function caller(url: string): TestService['call'] {
  return async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | Buffer | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left as text: the test asserts on it
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** scrypt at 2^12 keeps the suite fast; the production cost (2^17) has its own test. */
export const TEST_PASSWORD_HASHING = { logN: 12, r: 8, p: 1 };

export async function startTestService(
  opts: {
    env?: Record<string, string>;
    extraRoutes?: readonly AnyRoute[];
    role?: Role;
    clock?: Clock;
    /** How the service reaches its database (e.g. through a proxy the test can cut); the test's own connection stays direct. */
    databaseUrl?: (url: string) => string | Promise<string>;
  } = {},
): Promise<TestService> {
  const database = await createTestDatabase();
  const role = opts.role ?? 'api';
  // The embedded Temporal server (roles all and worker) keeps its state in the data folder: a
  // temporary one, removed on close. The API role must not need any.
  const dataDir = role === 'api' ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'svc-test-data-'));
  // Company initialization's rootPath must lie under it: a path of its own per service, not made yet.
  const companyRoot = path.join(os.tmpdir(), `svc-company-roots-${randomUUID()}`);
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: opts.databaseUrl ? await opts.databaseUrl(database.url) : database.url,
    SVC_DATA_DIR: dataDir ?? '/nonexistent',
    SVC_TEMPORAL_UI_PORT: '0', // test files run side by side: no fixed port
    SVC_OPERATOR_LOGIN: TEST_OPERATOR.login,
    SVC_OPERATOR_PASSWORD: TEST_OPERATOR.password,
    SVC_COMPANY_ROOT: companyRoot,
    // Ontology SQL backends at normal priority: tests run short statement timeouts on a busy machine,
    // where nice 19 could hold a query past them (the budgets test sets 19, the service's default).
    SVC_SQL_BACKEND_NICE: '0',
    // Sealed secrets (cameras, data connections): a key of the test's own (the API role has no data folder to keep a generated one in).
    SVC_SECRET_KEYS: `test:${randomBytes(32).toString('base64')}`,
    ...opts.env,
  });
  const service = await startService(config, {
    logger: pino({ level: 'info' }, sink),
    passwordHashing: TEST_PASSWORD_HASHING,
    // API tests need no Temporal (workflow starts wait in the outbox); workflow tests ask for role all.
    role,
    ...(opts.clock ? { clock: opts.clock } : {}),
    routes: opts.extraRoutes ? [...productRoutes, ...opts.extraRoutes] : productRoutes,
  });
  return {
    ...service,
    database,
    companyRoot: service.deps.companyRoot.allowed,
    logs,
    call: caller(service.url!),
    async close() {
      await service.stop();
      await database.drop();
      if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
      await fs.rm(companyRoot, { recursive: true, force: true });
    },
  };
}
