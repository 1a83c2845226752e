// App hosting throughput, measured against sirv serving the same files in the same run:
// requests per second for the entry page and for a versioned asset (brotli, as browsers ask,
// and uncompressed), printed as ratios. The goal is at least 0.8 of sirv for assets.
// Usage: npx node bench/hosting.ts [seconds=5]
import fs from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import autocannon from 'autocannon';
import sirv from 'sirv';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';

const seconds = Number(process.argv[2] ?? 5);
const { svc, dataDir, developerKey: key, call, stop } = await startBenchService();
const staticDir = path.join(dataDir, 'static');
let baseline: http.Server | undefined;

async function rps(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, headers, connections: 10, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

try {
  // A typical page: a small entry page and a 40 KB script.
  const entry = '<!doctype html><html><head><title>bench</title></head><body><script src="app.js"></script></body></html>';
  const script = Array.from({ length: 800 }, (_, i) => `export const value${i} = ${JSON.stringify(`item ${i} `.repeat(4))};`).join('\n');
  const files = [
    { path: 'index.html', encoding: 'utf8', content: entry },
    { path: 'app.js', encoding: 'utf8', content: script },
  ];
  const appPath = '/api/v1/developer/apps/cell-bench/bench';
  await call(
    'POST',
    `${appPath}/versions`,
    { manifest: { manifestVersion: 1, slug: 'bench', version: '1.0.0', title: 'Bench' }, files },
    key,
  );
  await call('POST', `${appPath}/channels/test`, {}, key);
  await call('POST', `${appPath}/channels/production`, {}, key);

  const address = `${svc.addresses.productionBase}/cell-bench/apps/bench`;
  const opened = await fetch(address, { headers: { authorization: `Bearer ${key}` } });
  const html = await opened.text();
  const base = /<base href="([^"]+)">/.exec(html)![1]!;
  const ticketCookie = opened.headers.getSetCookie()[0]!.split(';')[0]!;

  // sirv over the same files, with the brotli variant precompressed as it expects.
  await fs.mkdir(staticDir);
  await fs.writeFile(path.join(staticDir, 'index.html'), entry);
  await fs.writeFile(path.join(staticDir, 'app.js'), script);
  await fs.writeFile(path.join(staticDir, 'app.js.br'), brotliCompressSync(script));
  const serve = sirv(staticDir, { brotli: true, etag: true, immutable: true, maxAge: 31536000 });
  const server = http.createServer((req, res) => serve(req, res));
  baseline = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sirvUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;

  const br = { 'accept-encoding': 'br' };
  const rows: [string, number, number][] = [
    [
      'entry page (key; access check, ticket, open record)',
      await rps(address, { authorization: `Bearer ${key}` }),
      await rps(`${sirvUrl}/index.html`, {}),
    ],
    [
      'versioned asset, brotli (ticket cookie)',
      await rps(`${base}app.js`, { cookie: ticketCookie, ...br }),
      await rps(`${sirvUrl}/app.js`, br),
    ],
    [
      'versioned asset, uncompressed (ticket cookie)',
      await rps(`${base}app.js`, { cookie: ticketCookie }),
      await rps(`${sirvUrl}/app.js`, {}),
    ],
  ];
  console.log(`${'request'.padEnd(56)} ${'svc req/s'.padStart(10)} ${'sirv req/s'.padStart(11)}  ratio`);
  for (const [name, ours, theirs] of rows) {
    console.log(`${name.padEnd(56)} ${ours.toFixed(0).padStart(10)} ${theirs.toFixed(0).padStart(11)}  ${(ours / theirs).toFixed(2)}`);
    record({ name, value: ours, unit: 'req/s', baseline: theirs });
  }
} finally {
  baseline?.close();
  await stop();
}
