// App hosting throughput, measured against sirv serving the same files in the same run:
// requests per second for the entry page opened by signed-in members (each open checks access and
// hands out a ticket; sirv serves the very page a member received), the entry page's p99 at 500
// opens/s paced evenly, and a versioned asset (brotli, as browsers ask, and uncompressed), printed as ratios.
// Goals: 0.5 of sirv for the entry page, p99 under 20 ms, 0.8 of sirv for assets.
// Usage: npx node bench/hosting.ts [seconds=5]
import fs from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import autocannon from 'autocannon';
import sirv from 'sirv';
import { createSession } from '../domain/sessions/index.ts';
import { pacedLoad } from './support/processes.ts';
import { record, report } from './support/report.ts';
import { deployBenchApp, startBenchService } from './support/service.ts';

const seconds = Number(process.argv[2] ?? 5);
const bench = await startBenchService();
const { svc, dataDir, stop } = bench;
const staticDir = path.join(dataDir, 'static');
let baseline: http.Server | undefined;

/** Members of cell-bench signed in on the web, one session cookie each: opens are limited per visitor and app. */
const VISITORS = 1_000;

type Load = Pick<autocannon.Options, 'headers' | 'requests'>;

async function measure(url: string, load: Load) {
  const result = await autocannon({ url, connections: 10, duration: seconds, ...load });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

const rps = async (url: string, headers: Record<string, string>) => (await measure(url, { headers })).requests.average;

/** Each request as the next visitor in turn. */
function asVisitors(cookies: readonly string[]): Load {
  let next = 0;
  return {
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[next++ % cookies.length]! } }),
      },
    ],
  };
}

async function signInVisitors(): Promise<string[]> {
  const db = svc.deps.db;
  const company = await db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-bench').executeTakeFirstOrThrow();
  const ids = Array.from({ length: VISITORS }, (_, i) => `acc_visitor${i}`);
  await db
    .insertInto('accounts')
    .values(
      ids.map((id) => ({
        id,
        username: `${id}@bench.example`,
        email: `${id}@bench.example`,
        password_hash: null,
        status: 'active' as const,
      })),
    )
    .execute();
  await db
    .insertInto('licenses')
    .values(ids.map((id) => ({ account_id: id, company_id: company.id, role: 'member' as const })))
    .execute();
  const sessions = await Promise.all(ids.map((id) => createSession(db, id, undefined)));
  return sessions.map((s) => `svc_session=${s.token}`);
}

try {
  // A typical page: a small entry page and a 40 KB script.
  const entry = '<!doctype html><html><head><title>bench</title></head><body><script src="app.js"></script></body></html>';
  const script = Array.from({ length: 800 }, (_, i) => `export const value${i} = ${JSON.stringify(`item ${i} `.repeat(4))};`).join('\n');
  const files = [
    { path: 'index.html', encoding: 'utf8' as const, content: entry },
    { path: 'app.js', encoding: 'utf8' as const, content: script },
  ];
  const address = await deployBenchApp(bench, 'bench', files);
  const visitors = await signInVisitors();
  const opened = await fetch(address, { headers: { cookie: visitors[0]! } });
  const html = await opened.text();
  const base = /<base href="([^"]+)">/.exec(html)![1]!;
  const ticketCookie = opened.headers.getSetCookie()[0]!.split(';')[0]!;

  // sirv over the same files, with the brotli variant precompressed as it expects.
  await fs.mkdir(staticDir);
  await fs.writeFile(path.join(staticDir, 'index.html'), html);
  await fs.writeFile(path.join(staticDir, 'app.js'), script);
  await fs.writeFile(path.join(staticDir, 'app.js.br'), brotliCompressSync(script));
  const serve = sirv(staticDir, { brotli: true, etag: true, immutable: true, maxAge: 31536000 });
  const server = http.createServer((req, res) => serve(req, res));
  baseline = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sirvUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;

  const br = { 'accept-encoding': 'br' };
  const sirvEntry = await rps(`${sirvUrl}/index.html`, {});
  // First opens: each member's one open, the app-open rule's queries and a new ticket each.
  const first = await autocannon({ url: address, connections: 10, amount: VISITORS - 1, ...asVisitors(visitors.slice(1)) });
  if (first.non2xx > 0 || first.errors > 0) throw new Error(`first opens: ${first.non2xx} non-2xx answers, ${first.errors} errors`);
  const rows: [string, number, number, string | undefined][] = [
    [`entry page, first open of ${VISITORS} members (access, new ticket)`, first.requests.average, sirvEntry, undefined],
    [
      `entry page, the same ${VISITORS} members again (reused open)`,
      (await measure(address, asVisitors(visitors))).requests.average,
      sirvEntry,
      '>= 0.5x sirv',
    ],
    [
      'versioned asset, brotli (ticket cookie)',
      await rps(`${base}app.js`, { cookie: ticketCookie, ...br }),
      await rps(`${sirvUrl}/app.js`, br),
      '>= 0.8x sirv',
    ],
    [
      'versioned asset, uncompressed (ticket cookie)',
      await rps(`${base}app.js`, { cookie: ticketCookie }),
      await rps(`${sirvUrl}/app.js`, {}),
      '>= 0.8x sirv',
    ],
  ];
  console.log(`${'request'.padEnd(64)} ${'svc req/s'.padStart(10)} ${'sirv req/s'.padStart(11)}  ratio`);
  for (const [name, ours, theirs, goal] of rows) {
    console.log(`${name.padEnd(64)} ${ours.toFixed(0).padStart(10)} ${theirs.toFixed(0).padStart(11)}  ${(ours / theirs).toFixed(2)}`);
    record({ name, value: ours, unit: 'req/s', baseline: theirs, ...(goal ? { goal } : {}) });
  }
  // Paced evenly (pacedLoad): autocannon's fixed rate sends each second's opens as one burst.
  const paced = await pacedLoad({ url: address, headers: (i) => ({ cookie: visitors[i % visitors.length]! }), seconds, rate: 500 });
  if (paced.non2xx > 0 || paced.errors > 0) throw new Error(`paced opens: ${paced.non2xx} non-2xx answers, ${paced.errors} errors`);
  report({ name: 'entry page p99 at 500 opens/s, paced (reused opens)', value: paced.p99, unit: 'ms', goal: '< 20 ms' });
} finally {
  baseline?.close();
  await stop();
}
