// One database round trip (an empty query, what the principal cache sends before a request reads
// it) over loopback TCP and over the embedded cluster's Unix socket, which the service's own pools
// use: the client's CPU and the wall time per round trip, rounds interleaved so that both see the
// same load. Baseline in the same run: TCP. No goal: it says why the service takes the socket.
// Usage: npx node bench/postgres-socket.ts [round trips per round=3000] [rounds=6]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../infra/postgres/embedded-postgres.ts';
import { report } from './support/report.ts';
import { median } from './support/timing.ts';

const perRound = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 6);

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-socket-'));
await fs.chmod(dataDir, 0o755); // PostgreSQL runs as `postgres` when we are root
const cluster = await startEmbeddedPostgres({ dataDir });
try {
  if (!cluster.socketUrl) throw new Error(`no socket: the path under ${dataDir} is too long`);
  const clients = { tcp: new pg.Client({ connectionString: cluster.url }), socket: new pg.Client({ connectionString: cluster.socketUrl }) };
  const samples = { tcp: { cpu: [] as number[], wall: [] as number[] }, socket: { cpu: [] as number[], wall: [] as number[] } };
  for (const client of Object.values(clients)) await client.connect();
  for (let r = 0; r < rounds; r++) {
    for (const via of ['tcp', 'socket'] as const) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await clients[via].query('');
      const used = process.cpuUsage(cpu);
      samples[via].wall.push(((performance.now() - started) * 1000) / perRound);
      samples[via].cpu.push((used.user + used.system) / perRound);
    }
  }
  for (const client of Object.values(clients)) await client.end();
  const tcp = { cpu: median(samples.tcp.cpu), wall: median(samples.tcp.wall) };
  report({ name: 'round trip over loopback TCP, client CPU', value: tcp.cpu, unit: 'µs' });
  report({ name: 'round trip over the Unix socket, client CPU', value: median(samples.socket.cpu), unit: 'µs', baseline: tcp.cpu });
  report({ name: 'round trip over loopback TCP, wall', value: tcp.wall, unit: 'µs' });
  report({ name: 'round trip over the Unix socket, wall', value: median(samples.socket.wall), unit: 'µs', baseline: tcp.wall });
} finally {
  await cluster.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
