// Mixed load for 60 s, after a warm-up of 90 s under the same load, against the service in a process
// of its own, once as an API process (role api) and once as `npm start`'s role all (the embedded
// Temporal server, the worker and the outbox relay in the same process; PostgreSQL is a process of
// its own, not counted): uploads, identical re-uploads, promotions, app reads, device-code polls and
// key reads at once, from several keys of two companies. Prints p50/p99 per route, resident memory
// every 5 s and its slope after warm-up. Fails on any 5xx, any failure envelope other than the
// expected 4xx, and any request that errors or times out (pool exhaustion shows as one of these).
// The served process runs with `npm start`'s V8 flags and allocator settings (SERVICE_NODE_ARGS,
// SERVICE_ENV). The warm-up is long because resident memory keeps rising under load before it
// levels off (V8 sizing its heap to the allocation rate, the allocator's arenas), although live
// memory is flat from the start.
// Memory goals (issue 37): the API process at most 300 MB resident after warm-up, role all at most 500 MB.
// Usage: npx node bench/soak.ts [seconds measured=60] [seconds of warm-up=90] [roles=api,all]
import { randomBytes } from 'node:crypto';
import type { Role } from '../service.ts';
import { type ServerProcess, startServerProcess } from './support/processes.ts';
import { report } from './support/report.ts';

const seconds = Number(process.argv[2] ?? 60);
const WARM_UP_S = Number(process.argv[3] ?? 90);
const roles = (process.argv[4] ?? 'api,all').split(',') as Role[];
/** Resident memory after warm-up, per role. */
const RSS_GOAL_MB: Partial<Record<Role, number>> = { api: 300, all: 500 };
const SAMPLE_MS = 5_000;
const PASSWORD = 'soak-password-1';
/** Failure codes the load is expected to meet: device logins nobody approves. */
const EXPECTED = new Set(['authorization_pending']);

// The blob cache is bounded small here so that it is full by the end of warm-up: what still
// grows after that is not a cache filling up.
const BLOB_CACHE_BYTES = 8 * 1024 * 1024;
const MB = 1024 * 1024;

interface Outcome {
  latencies: number[];
  statuses: Map<number, number>;
}
const bundle = (slug: string, version: string) => ({
  manifest: { manifestVersion: 1, slug, version, title: 'Soak' },
  files: [
    { path: 'index.html', encoding: 'utf8', content: `<!doctype html><title>${slug} ${version}</title>` },
    ...Array.from({ length: 20 }, (_, i) => ({
      path: `assets/a${i}.png`,
      encoding: 'base64',
      content: randomBytes(4096).toString('base64'),
    })),
  ],
});

/** What one role's soak met; set-up requests are recorded under `set-up` and left out. */
async function soak(role: Role): Promise<void> {
  const server = await startServerProcess(
    ['service', role, JSON.stringify({ SVC_BLOB_CACHE_BYTES: String(BLOB_CACHE_BYTES) })],
    ['--expose-gc'],
  );
  try {
    await soakAgainst(server, role);
  } finally {
    await server.stop();
  }
}

async function soakAgainst(server: ServerProcess, role: Role): Promise<void> {
  /** Resident memory, and the JavaScript heap and buffers still live after a full GC (a leak shows there). */
  const sample = async () => {
    const m = await server.memory();
    return { rss: m.rss / MB, live: (m.heapUsed + m.external) / MB, heap: m.heapTotal / MB };
  };

  const outcomes = new Map<string, Outcome>();
  const unexpected: string[] = [];
  let failures = 0;

  /** One request, recorded under its route (the path with the names taken out). */
  async function call(route: string, method: string, path: string, key?: string, body?: unknown) {
    const started = performance.now();
    let status = 0;
    let json: any;
    try {
      const res = await fetch(server.url + path, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      json = await res.json();
    } catch (err) {
      failures++;
      unexpected.push(`${route}: ${String(err)}`);
      return undefined;
    }
    const outcome: Outcome = outcomes.get(route) ?? { latencies: [], statuses: new Map<number, number>() };
    outcomes.set(route, outcome);
    outcome.latencies.push(performance.now() - started);
    outcome.statuses.set(status, (outcome.statuses.get(status) ?? 0) + 1);
    if (status >= 500 || (status >= 400 && !EXPECTED.has(json?.error?.code))) {
      unexpected.push(`${route}: ${status} ${JSON.stringify(json?.error).slice(0, 300)}`);
    }
    return json?.data;
  }

  async function setUp() {
    const must = async (method: string, path: string, key: string | undefined, body: unknown) => {
      const data = await call('set-up', method, path, key, body);
      if (!data) throw new Error(`set-up failed: ${method} ${path}: ${unexpected.at(-1)}`);
      return data;
    };
    const op = server.operatorKey!;
    await must('POST', '/api/v1/admin/organizations', op, { cellId: 'cell-soak', name: 'Soak' });
    const keys: { cellId: string; key: string }[] = [{ cellId: 'cell-bench', key: server.developerKey! }];
    for (const [username, cellId] of [
      ['soak-a', 'cell-bench'],
      ['soak-b', 'cell-soak'],
      ['soak-c', 'cell-soak'],
    ] as const) {
      await must('POST', '/api/v1/admin/users', op, {
        username,
        email: `${username}@bench.test`,
        password: PASSWORD,
        emailVerified: true,
        licenses: [{ cellId, role: 'developer' }],
      });
      keys.push({
        cellId,
        key: (await must('POST', '/api/v1/developer/password-tokens', undefined, { login: username, password: PASSWORD })).key,
      });
    }
    // Device logins stay pending (nobody approves them); each is polled at its interval.
    const deviceCodes: { deviceCode: string; interval: number }[] = [];
    for (let i = 0; i < 4; i++)
      deviceCodes.push(await must('POST', '/api/v1/developer/device-codes', undefined, { clientName: `soak ${i}` }));
    return { keys, deviceCodes };
  }

  const { keys, deviceCodes } = await setUp();
  const end = Date.now() + (WARM_UP_S + seconds) * 1000;
  const running = () => Date.now() < end;
  const samples = [await sample()];
  const sampler = setInterval(() => void sample().then((s) => samples.push(s)), SAMPLE_MS);

  const loops = keys.flatMap(({ cellId, key }, k) => {
    const slug = `soak-${k}`;
    const app = `/api/v1/developer/apps/${cellId}/${slug}`;
    let build = 0;
    let uploaded = false;
    return [
      // Uploads, each followed by its identical re-upload, then test and production.
      (async () => {
        while (running()) {
          const files = bundle(slug, `1.0.${build++}`);
          // Reads of the app start once an upload has created it (one may time out on a busy machine).
          if (await call('upload', 'POST', `${app}/versions`, key, files)) uploaded = true;
          await call('identical re-upload', 'POST', `${app}/versions`, key, files);
          await call('promote', 'POST', `${app}/channels/test`, key, {});
          await call('promote', 'POST', `${app}/channels/production`, key, {});
        }
      })(),
      (async () => {
        while (running()) {
          if (uploaded) await call('GET app', 'GET', app, key);
          await call('GET apps', 'GET', '/api/v1/developer/apps', key);
        }
      })(),
      (async () => {
        while (running()) {
          await call('GET me', 'GET', '/api/v1/developer/me', key);
          await call('GET keys', 'GET', '/api/v1/developer/keys', key);
        }
      })(),
    ];
  });
  const polls = deviceCodes.map(async ({ deviceCode, interval }) => {
    while (running()) {
      await call('device-token poll', 'POST', '/api/v1/developer/device-tokens', undefined, { deviceCode });
      await new Promise((resolve) => setTimeout(resolve, interval * 1000));
    }
  });
  await Promise.all([...loops, ...polls]);
  clearInterval(sampler);
  samples.push(await sample());

  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
  console.log(
    `soak of role ${role}, ${WARM_UP_S} s of warm-up then ${seconds} s, ${keys.length} keys in 2 companies, ${deviceCodes.length} device logins`,
  );
  console.log(`${'route'.padEnd(20)} ${'requests'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  statuses`);
  for (const [route, o] of [...outcomes].filter(([r]) => r !== 'set-up')) {
    const statuses = [...o.statuses].map(([s, n]) => `${s}x${n}`).join(' ');
    console.log(
      `${route.padEnd(20)} ${String(o.latencies.length).padStart(9)} ${pct(o.latencies, 0.5).toFixed(1).padStart(8)} ${pct(o.latencies, 0.99).toFixed(1).padStart(8)}  ${statuses}`,
    );
  }
  console.log(`RSS every ${SAMPLE_MS / 1000} s (MB): ${samples.map((m) => m.rss.toFixed(0)).join(' ')}`);
  console.log(`live heap + buffers after GC (MB): ${samples.map((m) => m.live.toFixed(0)).join(' ')}`);
  // The heap V8 keeps committed (it grows it to the allocation rate), and what is resident outside it.
  console.log(`V8 heap committed (MB): ${samples.map((m) => m.heap.toFixed(0)).join(' ')}`);
  console.log(`resident outside the V8 heap (MB): ${samples.map((m) => (m.rss - m.heap).toFixed(0)).join(' ')}`);

  /** Least-squares slope of the samples after warm-up, in MB per minute. */
  const slopeOf = (ys: number[]) => {
    const after = ys.slice(Math.ceil((WARM_UP_S * 1000) / SAMPLE_MS));
    const xs = after.map((_, i) => (i * SAMPLE_MS) / 60_000);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = after.reduce((a, b) => a + b, 0) / after.length;
    return xs.reduce((a, x, i) => a + (x - mx) * (after[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  };

  const all = [...outcomes].filter(([r]) => r !== 'set-up');
  const fiveXX = all.reduce((n, [, o]) => n + [...o.statuses].filter(([s]) => s >= 500).reduce((m, [, c]) => m + c, 0), 0);
  const name = (what: string) => `soak (role ${role}) ${what}`;
  report({ name: name('requests'), value: all.reduce((n, [, o]) => n + o.latencies.length, 0), unit: 'requests' });
  report({ name: name('5xx answers'), value: fiveXX, unit: 'answers', goal: '0' });
  report({ name: name('unexpected failures (envelopes, errors, timeouts)'), value: unexpected.length, unit: 'requests', goal: '0' });
  for (const [route, o] of all) report({ name: name(`p99 ${route}`), value: pct(o.latencies, 0.99), unit: 'ms' });
  // Flat: within what one allocator step adds over the measured time (a leak shows in live memory first).
  report({ name: name(`RSS slope after ${WARM_UP_S} s`), value: slopeOf(samples.map((m) => m.rss)), unit: 'MB/min', goal: '< 10 MB/min' });
  report({
    name: name(`live-memory slope after ${WARM_UP_S} s`),
    value: slopeOf(samples.map((m) => m.live)),
    unit: 'MB/min',
    goal: '< 5 MB/min',
  });
  const measured = samples.slice(Math.ceil((WARM_UP_S * 1000) / SAMPLE_MS));
  const goal = RSS_GOAL_MB[role];
  report({
    name: name(`RSS after warm-up, highest sample`),
    value: Math.max(...measured.map((m) => m.rss)),
    unit: 'MB',
    ...(goal ? { goal: `<= ${goal} MB` } : {}),
  });
  if (unexpected.length || failures) {
    console.log(`unexpected:\n  ${[...new Set(unexpected)].slice(0, 20).join('\n  ')}`);
    process.exitCode = 1;
  }
}

for (const role of roles) await soak(role);
