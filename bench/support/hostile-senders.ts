// The hostile client of bench/hostile-tenants.ts, in a thread of its own at the lowest scheduling
// priority. It stands for a client on another machine: on the bench's one small machine its own
// CPU (thousands of requests and answers) would otherwise be taken from the service and the
// probes, and counted as the service's latency. Its requests reach the service exactly as before.
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

export interface HostileLoad {
  url: string;
  key: string;
  from: string;
  seconds: number;
  sql: string[];
  /** [path, body] of the app API call that evaluates the five nested maps. */
  api: [string, unknown];
}
export type Answers = Record<string, number>;

const load = workerData as HostileLoad;
try {
  setPriority(constants.priority.PRIORITY_LOW); // Linux: this thread only
} catch {
  // Elsewhere the client competes at normal priority: worse figures, same answers.
}

async function send(path: string, body: unknown): Promise<string> {
  const res = await fetch(load.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': load.from, authorization: `Bearer ${load.key}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return `${res.status} ${(text && (JSON.parse(text) as { error?: { code?: string } }).error?.code) || 'ok'}`;
}

/** `senders` loops sending `next(n)` until `until`; the answers by status and error code. */
async function senders(until: number, count: number, next: (n: number) => Promise<string>): Promise<Answers> {
  const answers: Answers = {};
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      for (let n = i; performance.now() < until; n++) {
        const kind = await next(n);
        answers[kind] = (answers[kind] ?? 0) + 1;
      }
    }),
  );
  return answers;
}

const until = performance.now() + load.seconds * 1000;
const [sql, expressions] = await Promise.all([
  // Six SQL senders, more than the SQL budget (4 at once, 2 per company by default): the rest queue or get 429.
  senders(until, 6, (n) => send('/api/v1/sqlQueries/executeOntology', { query: load.sql[n % load.sql.length] })),
  senders(until, 4, () => send(...load.api)),
]);
parentPort!.postMessage({ sql, expressions });
