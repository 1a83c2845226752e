// Servers in child processes (bench/support/serve.ts) and load against them: autocannon at
// saturation, an evenly paced client at a fixed rate.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { START_SETTINGS } from './start-settings.ts';

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

/** The V8 flags `npm start` runs the service with (its NODE_OPTIONS): a served service runs with them too. */
export const SERVICE_NODE_ARGS: readonly string[] = START_SETTINGS.nodeFlags;

/** The environment `npm start` sets before `node` (the allocator's settings): a served service gets it too. */
export const SERVICE_ENV: Readonly<Record<string, string>> = START_SETTINGS.env;

/** A baseline's server (bare Koa) runs without the service's allocator settings, which `npm run bench` gives every bench. */
function withoutServiceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !(name in SERVICE_ENV)));
}

/**
 * `nodeArgs` such as `--cpu-prof` go to the child's node (SVC_BENCH_NODE_ARGS adds more, for
 * profiling), after SERVICE_NODE_ARGS when it serves the service; the bench's own environment
 * overrides SERVICE_ENV (MALLOC_ARENA_MAX=8 to compare).
 */
export async function startServerProcess(args: string[], nodeArgs: string[] = []): Promise<ServerProcess> {
  const extra = process.env.SVC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const service = args[0] === 'service';
  const child = spawn(process.execPath, [...(service ? SERVICE_NODE_ARGS : []), ...extra, ...nodeArgs, serveScript, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: service ? { ...SERVICE_ENV, ...process.env } : withoutServiceEnv(process.env),
  });
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

/** autocannon against one URL at saturation. */
export async function load(opts: {
  url: string;
  headers?: Record<string, string>;
  seconds: number;
  connections?: number;
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
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * `rate` GET requests a second, each sent at its own time (one every 1/rate s) over up to 20
 * keep-alive connections, its latency counted from that time, so a request that waits for a
 * connection or behind a stall counts its wait. autocannon's fixed rate sends each connection's
 * share of a second back to back when the second starts (bursts of `rate` requests), which
 * measures bursts, not a steady rate.
 */
export async function pacedLoad(opts: {
  url: string;
  /** The same for every request, or the i-th request's own (each request as another visitor). */
  headers?: Record<string, string> | ((i: number) => Record<string, string>);
  seconds: number;
  rate: number;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const total = Math.round(opts.rate * opts.seconds);
  const start = performance.now();
  const due = (i: number) => start + (i * 1000) / opts.rate;
  await new Promise<void>((resolve) => {
    let sent = 0;
    let ended = 0;
    const end = () => {
      if (++ended === total) resolve();
    };
    const tick = () => {
      for (const now = performance.now(); sent < total && due(sent) <= now; sent++) {
        const at = due(sent);
        http
          .get(opts.url, { agent, headers: typeof opts.headers === 'function' ? opts.headers(sent) : opts.headers }, (res) => {
            if ((res.statusCode ?? 0) >= 300) non2xx++;
            res.resume().on('end', () => {
              latencies.push(performance.now() - at);
              end();
            });
          })
          .on('error', () => {
            errors++;
            end();
          });
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? Number.NaN;
  return { requestsPerSecond: latencies.length / ((performance.now() - start) / 1000), p50: at(0.5), p99: at(0.99), non2xx, errors };
}
