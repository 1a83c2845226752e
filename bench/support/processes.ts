// Servers in child processes (bench/support/serve.ts) and load against them with autocannon.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface ServerProcess {
  url: string;
  developerKey?: string;
  operatorKey?: string;
  /** An app ticket of the developer (serve.ts's `ticket` argument). */
  ticket?: string;
  pid: number;
  /** The server's memory use (after a full GC when started with --expose-gc). */
  memory(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

const serveScript = new URL('./serve.ts', import.meta.url).pathname;

/** The V8 flags `npm start` runs the service with (package.json's start script): a served service runs with them too. */
export const SERVICE_NODE_ARGS: readonly string[] = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((arg) => arg.startsWith('--'));

/**
 * `nodeArgs` such as `--cpu-prof` go to the child's node (SVC_BENCH_NODE_ARGS adds more, for
 * profiling), after SERVICE_NODE_ARGS when it serves the service.
 */
export async function startServerProcess(args: string[], nodeArgs: string[] = []): Promise<ServerProcess> {
  const extra = process.env.SVC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const own = args[0] === 'service' ? SERVICE_NODE_ARGS : [];
  const child = spawn(process.execPath, [...own, ...extra, ...nodeArgs, serveScript, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server ${args.join(' ')} exited with ${code}`)));
  });
  return {
    ...(JSON.parse(line) as { url: string; developerKey?: string; operatorKey?: string; ticket?: string }),
    pid: child.pid!,
    memory: () =>
      new Promise((resolve) => {
        lines.once('line', (answer) => resolve(JSON.parse(answer)));
        child.stdin!.write('memory\n');
      }),
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon against one URL: at saturation, or at `rate` requests per second in all. */
export async function load(opts: {
  url: string;
  headers?: Record<string, string>;
  seconds: number;
  connections?: number;
  rate?: number;
  /** Each request from the next of this many addresses (X-Forwarded-For; the server trusts 127.0.0.1 as its proxy). */
  sources?: number;
}): Promise<LoadResult> {
  let next = 0;
  const sources = opts.sources;
  const result = await autocannon({
    url: opts.url,
    headers: opts.headers,
    ...(sources
      ? {
          requests: [
            {
              setupRequest: (req) => {
                const n = next++ % sources;
                return { ...req, headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` } };
              },
            },
          ],
        }
      : {}),
    connections: opts.connections ?? 20,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
