// Throughput and latency of one-activity workflows on the embedded temporal-dev server.
// Usage (in infra/temporal-dev): npm run bench -- [workflows=500] [concurrency=50] [memory|file]
// The server runs in its own process (like in tests), the SDK client and worker in this one.
// `file`: the server keeps its state in a new SQLite file (--db-filename) in a temporary folder.
// TEMPORAL_ADDRESS=host:port benchmarks an already running server instead (e.g. real Temporal).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

const total = Number(process.argv[2] ?? 500);
const concurrency = Number(process.argv[3] ?? 50);
const stateDir = process.argv[4] === 'file' ? mkdtempSync(path.join(tmpdir(), 'temporal-dev-bench-')) : undefined;
const taskQueue = 'bench';

Runtime.install({ logger: new DefaultLogger('WARN') });

const server = process.env.TEMPORAL_ADDRESS
  ? undefined
  : spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../cli.ts', import.meta.url)),
        ...['server', 'start-dev', '--port', '0'],
        ...(stateDir ? ['--db-filename', path.join(stateDir, 'state.sqlite')] : []),
      ],
      { stdio: ['ignore', 'inherit', 'pipe'] },
    );
let address = process.env.TEMPORAL_ADDRESS ?? '';
for await (const chunk of server?.stderr ?? []) {
  const match = /listening on (\S+)/.exec(String(chunk));
  if (match) {
    address = match[1]!;
    break;
  }
}

try {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../test/workflows/index.ts', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  });
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowBundle,
    activities: { greet: async (name: string) => `Hello, ${name}!` },
  });
  const client = new Client({ connection: await Connection.connect({ address }) });

  const runOne = async (i: number): Promise<number> => {
    const started = performance.now();
    await client.workflow.execute('greeting', { taskQueue, workflowId: `bench-${i}-${Date.now()}`, args: [`#${i}`] });
    return performance.now() - started;
  };
  const runMany = async (count: number): Promise<number[]> => {
    const latencies: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count) }, async () => {
        while (next < count) latencies.push(await runOne(next++));
      }),
    );
    return latencies;
  };

  await worker.runUntil(async () => {
    await runMany(Math.min(50, total)); // warm-up: JIT, workflow cache, connections
    const started = performance.now();
    const latencies = (await runMany(total)).sort((a, b) => a - b);
    const seconds = (performance.now() - started) / 1000;
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
    console.log(
      `temporal-dev bench: ${total} one-activity workflows, concurrency ${concurrency}, state ${stateDir ? 'in a file' : 'in memory'}`,
    );
    console.log(`  throughput: ${(total / seconds).toFixed(1)} workflows/s (${seconds.toFixed(2)} s)`);
    console.log(`  start-to-result latency: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);
  });
} finally {
  if (server) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}
