import { existsSync, readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedTemporal } from '../../worker/embedded-temporal.ts';

// The embedded server on its thread: what the service asks of it across the thread's boundary.
let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-embedded-temporal-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});
const logger = pino({ level: 'silent' });
/** Threads of this process by the name `startEmbeddedTemporal` gives its own. */
const serverThreads = () =>
  readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'temporal-dev').length;

describe('the embedded Temporal server’s thread', () => {
  it('serves the namespace and the Web UI with the codec endpoint set after start, copies its state, and ends its thread on stop, keeping the state for the next start', async () => {
    const stateFile = path.join(dir, 'temporal.sqlite');
    const server = await startEmbeddedTemporal({ namespace: 'svc-test', stateFile, uiPort: 0 }, logger);
    expect(serverThreads()).toBe(1);
    try {
      const connection = await Connection.connect({ address: server.address });
      const described = await connection.workflowService.describeNamespace({ namespace: 'svc-test' });
      expect(described.namespaceInfo?.name).toBe('svc-test');
      await connection.close();

      const codec = async () => ((await (await fetch(`${server.uiUrl}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } }).Codec;
      expect((await codec()).Endpoint).toBe('');
      server.setUiCodecEndpoint('http://127.0.0.1:1/codec');
      await expect.poll(async () => (await codec()).Endpoint).toBe('http://127.0.0.1:1/codec');

      const copy = path.join(dir, 'copy.sqlite');
      await server.copyStateTo(copy);
      expect(existsSync(copy)).toBe(true);
      await expect(server.copyStateTo(copy)).rejects.toThrow();
    } finally {
      await server.stop();
    }
    expect(serverThreads()).toBe(0);
    // The next start on the same file finds the namespace it kept.
    const again = await startEmbeddedTemporal({ namespace: 'other', stateFile, uiPort: undefined }, logger);
    try {
      const connection = await Connection.connect({ address: again.address });
      const described = await connection.workflowService.describeNamespace({ namespace: 'svc-test' });
      expect(described.namespaceInfo?.name).toBe('svc-test');
      await connection.close();
    } finally {
      await again.stop();
    }
  });

  it('a server that cannot start fails the start with its reason', async () => {
    const notAFile = path.join(dir, 'a-folder');
    await fs.mkdir(notAFile);
    await expect(startEmbeddedTemporal({ namespace: 'svc-test', stateFile: notAFile, uiPort: undefined }, logger)).rejects.toThrow(
      /cannot open .*a-folder/,
    );
  });
});
