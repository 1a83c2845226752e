import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { connectDatabase, type Db } from '../../domain/db/index.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded-postgres.ts';
import { AesGcmPayloadCodec } from '../../infra/temporal-codec/payload-codec.ts';
import { workflowBundle } from '../../worker/workflow-bundle.ts';
import { exitCode, type StartedProcess, startProcess } from '../support/process.ts';
import { startS3Server, type TestS3 } from '../support/s3.ts';
import { caller, type HttpService, TEST_OPERATOR } from '../support/service.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// The scaled-out topology on loopback, as docs/operators/scaling-out.md describes it: one external
// PostgreSQL, one standalone Temporal server with a state file and one S3 server, each reached only
// through its address, then two `npm run api` and two `npm run worker` processes, each with its
// own port and data folder. Everything starts in parallel where nothing orders it; close() stops
// it all, and a start that fails half-way stops what it had started.

export interface ClusterProcess extends StartedProcess {
  name: string;
}

/** An API process: the helpers of test/support (seedCompanies, release...) drive it like a test service. */
export interface ApiProcess extends ClusterProcess, HttpService {
  url: string;
}

export interface Cluster {
  /** The two API processes, A and B (restart replaces an entry). */
  api: [ApiProcess, ApiProcess];
  /** The two workers (restart replaces an entry). */
  workers: [ClusterProcess, ClusterProcess];
  /**
   * Starts again, with its data folder, the process of this name (api-a, api-b, worker-a,
   * worker-b) once it has exited (a test killed or stopped it), and puts it in its place.
   */
  restart(name: string): Promise<ClusterProcess>;
  /** The PostgreSQL server: stopped (fast shutdown) and started again on its data and port. */
  postgres: Restartable;
  /** The Temporal server: stopped (SIGTERM) and started again on its state file and port. */
  temporalServer: Restartable;
  databaseUrl: string;
  /** The shared database, for assertions on what the processes wrote. */
  db: Db;
  temporalAddress: string;
  /** A client of the cluster's Temporal server that reads the payloads its workers sealed (closed by close()). */
  temporal: Client;
  s3: TestS3;
  /** The svc processes reach S3 through this link: cut, S3 is unreachable for them (not for the test). */
  s3Link: { cut(): Promise<void>; restore(): Promise<void> };
  /** Where company initialization may create company roots (SVC_COMPANY_ROOT of every process). */
  companyRoot: string;
  /** Milliseconds from the call until every process was ready. */
  startupMs: number;
  close(): Promise<void>;
}

export interface Restartable {
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface ClusterOptions {
  /** Extra environment for every svc process. */
  env?: Record<string, string>;
  /** Where the processes' output goes as it comes (the bench shows it; tests keep it for failures). */
  onOutput?: (name: string, chunk: string) => void;
}

const STOP_GRACE_MS = 10_000;

/** Children of every cluster of this process, killed if it exits without closing them (a crashed test file). */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Tracks a child and returns its stop: SIGTERM, then SIGKILL if it has not exited within the grace. */
function stopperOf(child: ChildProcess, exited: Promise<unknown>): () => Promise<void> {
  children.add(child);
  void exited.then(() => children.delete(child));
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
}

/**
 * `temporal-dev server start-dev` (what infra/temporal-dev's bin runs) with its state in
 * `stateFile`, on `port` (0: any); resolves with its address and its stop.
 */
async function startTemporal(stateFile: string, port: number): Promise<{ address: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [path.resolve('infra/temporal-dev/cli.ts'), 'server', 'start-dev', '--port', String(port), '--headless', '--db-filename', stateFile],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = exitCode(child);
  const stop = stopperOf(child, exited);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ address: m[1]!, stop });
    });
    void exited.then((code) => reject(new Error(`temporal-dev exited with ${code}: ${out}`)));
  });
}

/**
 * A server the cluster restarts: `current` stops the running one; the cluster's close stops
 * whichever runs then.
 */
function restartable(begin: () => Promise<() => Promise<void>>, stops: (() => Promise<void>)[]): Restartable {
  let current: (() => Promise<void>) | undefined;
  stops.push(() => current?.() ?? Promise.resolve());
  return {
    async stop() {
      await current?.();
      current = undefined;
    },
    async start() {
      if (current) throw new Error('already running');
      current = await begin();
    },
  };
}

/**
 * Compiles the svc processes' modules once into Node's compile cache (`dir`), while the servers
 * start: the four processes then load their code from it rather than each compiling it (about
 * 6 s of CPU each on a busy 2-core machine, 1.5 s from the cache).
 */
async function warmCompileCache(dir: string): Promise<void> {
  // What main.ts loads (it would start a service itself), and the S3 backend service.ts loads when configured.
  const modules = ['service.ts', 'worker/run-worker.ts', 'infra/blobs/s3-blob-backend.ts'];
  const script = modules.map((m) => `await import(${JSON.stringify(pathToFileURL(path.resolve(m)).href)});`).join('');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: dir },
    stdio: 'ignore',
  });
  const code = await exitCode(child);
  if (code !== 0) throw new Error(`warming the compile cache exited with ${code}`);
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const started = Date.now();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cluster-'));
  // PostgreSQL runs as `postgres` when we are root: it must reach its folder.
  await fs.chmod(root, 0o755);
  const stops: (() => Promise<void>)[] = [];
  // The svc processes stop together (each drains on its own), then the servers they used, in reverse.
  const processStops: (() => Promise<void>)[] = [];
  const close = async () => {
    await Promise.all(processStops.map((stop) => stop().catch(() => {})));
    processStops.length = 0;
    for (const stop of stops.reverse()) await stop().catch(() => {});
    stops.length = 0;
    await fs.rm(root, { recursive: true, force: true });
  };
  try {
    // The workflow bundle, made once as `npm run build` would, in each worker's own cache (bundling
    // in both workers at once costs each of them seconds of CPU).
    const bundleCache = path.join(root, 'worker-a', 'cache');
    const compileCache = path.join(root, 'node-compile-cache');
    const pgDir = path.join(root, 'postgres-server');
    const stateFile = path.join(root, 'temporal-server', 'state.db');
    // Fixed at the first start, so a restart keeps every process's DATABASE_URL and TEMPORAL_ADDRESS.
    let pgPort = 0;
    let pgUrl = '';
    let temporalPort = 0;
    let temporalAddress = '';
    const postgres = restartable(async () => {
      const server = await startEmbeddedPostgres({ dataDir: pgDir, database: 'svc', port: pgPort || undefined });
      pgPort = server.port;
      pgUrl = server.url;
      return () => server.stop();
    }, stops);
    const temporalServer = restartable(async () => {
      const server = await startTemporal(stateFile, temporalPort);
      temporalPort = Number(server.address.split(':').pop());
      temporalAddress = server.address;
      return server.stop;
    }, stops);
    const [, , s3] = await Promise.all([
      postgres.start(),
      fs.mkdir(path.dirname(stateFile)).then(() => temporalServer.start()),
      startS3Server().then((server) => {
        stops.push(() => server.close());
        return server;
      }),
      warmCompileCache(compileCache),
      // (None when `npm run build` left a current prebuilt bundle: both workers use that.)
      workflowBundle({ cacheDir: bundleCache }).then(({ prebuilt }) =>
        prebuilt === true ? undefined : fs.cp(bundleCache, path.join(root, 'worker-b', 'cache'), { recursive: true }),
      ),
    ]);
    const s3Link = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    stops.push(() => s3Link.close());
    const db = connectDatabase({ connectionString: pgUrl, maxConnections: 5 });
    stops.push(() => db.destroy());

    const payloadKey = { id: 'cluster', key: randomBytes(32) };
    const temporal = new Client({
      connection: await Connection.connect({ address: temporalAddress }),
      dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([payloadKey])] },
    });
    stops.push(() => temporal.connection.close());
    const companyRoot = path.join(root, 'companies');
    await fs.mkdir(companyRoot);
    const shared = {
      DATABASE_URL: pgUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      ...s3.env('cluster'),
      SVC_BLOB_STORE_ENDPOINT: `http://127.0.0.1:${s3Link.port}`,
      // Every process must read what any worker wrote to Temporal: one key for the whole cluster.
      SVC_TEMPORAL_PAYLOAD_KEYS: `${payloadKey.id}:${payloadKey.key.toString('base64')}`,
      // Likewise sealed secrets (data connections, cameras): sealed by API processes, opened by workers.
      SVC_SECRET_KEYS: `cluster:${randomBytes(32).toString('base64')}`,
      // The test service's operator, whom the identity helpers sign in as.
      SVC_OPERATOR_LOGIN: TEST_OPERATOR.login,
      SVC_OPERATOR_PASSWORD: TEST_OPERATOR.password,
      SVC_COMPANY_ROOT: companyRoot,
      // The simulated cloud stands for EC2, one account every worker reaches.
      SVC_LOCAL_CLOUD_DIR: path.join(root, 'local-cloud'),
      // Node's cache of compiled code (not svc state): read by all, written by warmCompileCache.
      NODE_COMPILE_CACHE: compileCache,
      ...opts.env,
    };
    const start = async (name: string, role: 'api' | 'worker', ready?: RegExp): Promise<ClusterProcess> => {
      const dataDir = path.join(root, name);
      await fs.mkdir(dataDir, { recursive: true });
      const p = await startProcess([role], { ...shared, SVC_DATA_DIR: dataDir }, ready, {
        spawned: (child, exited) => processStops.push(stopperOf(child, exited)),
        output: (chunk) => opts.onOutput?.(name, chunk),
      });
      return { ...p, name };
    };
    const startApi = async (name: string): Promise<ApiProcess> => {
      // Up to the banner's last address line, which may come in a later chunk than the first.
      const p = await start(name, 'api', /svc listening on (http:\/\/\S+)[\s\S]*?developer: +\S+\n/);
      const line = (label: string) => new RegExp(`${label}: +(\\S+)`).exec(p.output())![1]!;
      return {
        ...p,
        url: p.ready,
        call: caller(p.ready),
        addresses: { baseUrl: line('base'), productionBase: line('production'), developerBase: line('developer') },
      };
    };
    // All at once on a fresh database, as replicas start: migrations and the operator account are
    // made once, by whichever process comes first.
    const startWorker = (name: string) => start(name, 'worker', /svc worker started/);
    const [apiA, apiB, workerA, workerB] = await Promise.all([
      startApi('api-a'),
      startApi('api-b'),
      startWorker('worker-a'),
      startWorker('worker-b'),
    ]);
    const cluster: Cluster = {
      api: [apiA, apiB],
      workers: [workerA, workerB],
      async restart(name) {
        const [list, startOne] = name.startsWith('api-') ? [cluster.api, startApi] : [cluster.workers, startWorker];
        const i = list.findIndex((p) => p.name === name);
        if (i < 0) throw new Error(`no process ${name}`);
        const old = list[i]!;
        if (old.child.exitCode === null && old.child.signalCode === null) throw new Error(`${name} is still running`);
        const fresh = await startOne(name);
        list[i] = fresh as ApiProcess;
        return fresh;
      },
      postgres,
      temporalServer,
      databaseUrl: pgUrl,
      db,
      temporalAddress,
      temporal,
      s3,
      s3Link,
      companyRoot,
      startupMs: Date.now() - started,
      close,
    };
    return cluster;
  } catch (err) {
    await close();
    throw err;
  }
}
