import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesGcmPayloadCodec, generatedPayloadKey } from '../infra/temporal-codec/payload-codec.ts';
import { ENTRY, exitCode, startProcess } from './support/process.ts';

// `npm start` as a newcomer runs it: the entry file on the embedded defaults.

let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-start-'));
  await fs.chmod(dataDir, 0o755);
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

const start = async (env: Record<string, string>) => {
  const started = await startProcess([], env);
  return { ...started, url: started.ready };
};

describe('npm start', () => {
  it('serves the API on the embedded database and keeps data across a restart', async () => {
    const first = await start({ SVC_DATA_DIR: dataDir });
    expect(first.output()).toContain('/api/v1/openapi.json');
    const doc = (await (await fetch(`${first.url}/api/v1/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.53.0');
    const before = ((await (await fetch(`${first.url}/api/v1/health`)).json()) as any).data;
    const firstExit = first.exited;
    first.child.kill('SIGTERM');
    expect(await firstExit).toBe(0);

    const second = await start({ SVC_DATA_DIR: dataDir });
    const after = ((await (await fetch(`${second.url}/api/v1/health`)).json()) as any).data;
    expect(after.instanceId).toBe(before.instanceId);
    expect(after.instanceCreatedAt).toBe(before.instanceCreatedAt);
    const secondExit = second.exited;
    second.child.kill('SIGINT');
    expect(await secondExit).toBe(0);
  }, 60_000);

  it('runs the worker on the embedded Temporal server: a device login’s workflow runs to completion', async () => {
    const svc = await start({ SVC_DATA_DIR: dataDir, SVC_OPERATOR_LOGIN: 'ops', SVC_OPERATOR_PASSWORD: 'start-test-password' });
    const exit = svc.exited;
    const temporalAddress = /temporal: +(\S+) \(embedded server, local use only; state in \S+\)/.exec(svc.output())![1]!;
    // The embedded server's Web UI is announced and answers (its settings need no build).
    const ui = /Temporal UI: +(\S+)/.exec(svc.output())![1]!;
    expect(((await (await fetch(`${ui}/api/v1/settings`)).json()) as any).DefaultNamespace).toBe('default');
    const connection = await Connection.connect({ address: temporalAddress });
    try {
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(svc.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: svc.url, ...headers },
          body: JSON.stringify(body),
        });
        return { status: res.status, headers: res.headers, body: (await res.json()) as any };
      };
      const device = (await post('/api/v1/developer/device-codes', { clientName: 'start test' })).body.data;
      const signedIn = await post('/api/v1/web/sessions', { login: 'ops', password: 'start-test-password' });
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      expect(
        (await post('/api/v1/developer/device-codes/decision', { userCode: device.userCode, decision: 'approve' }, { cookie })).status,
      ).toBe(200);
      expect((await post('/api/v1/developer/device-tokens', { deviceCode: device.deviceCode })).status).toBe(201);

      // svc seals its payloads and memos with the data folder's generated key (infra/temporal-codec).
      const key = await generatedPayloadKey(dataDir, { create: false });
      const client = new Client({ connection, dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([key!])] } });
      await expect
        .poll(
          async () => {
            const runs = [];
            for await (const w of client.workflow.list({ query: 'WorkflowType = "deviceLoginExpiry"' })) runs.push(w.status.name);
            return runs;
          },
          { timeout: 10_000 },
        )
        .toEqual(['COMPLETED']);
    } finally {
      await connection.close();
      svc.child.kill('SIGTERM');
      expect(await exit).toBe(0);
    }
  }, 60_000);

  // Without a SIGTERM listener the process would die at once and leave its PostgreSQL running,
  // which the next start then refuses ("another PostgreSQL is using ...").
  it('stops cleanly on a SIGTERM sent the moment it says it listens, and on one sent while it starts', async () => {
    const own = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-signal-'));
    await fs.chmod(own, 0o755);
    const lockFile = path.join(own, 'postgres', 'postmaster.pid');
    try {
      const listening = await start({ SVC_DATA_DIR: own, SVC_TEMPORAL_UI_PORT: 'off' });
      listening.child.kill('SIGTERM');
      expect(await listening.exited).toBe(0);
      await expect(fs.access(lockFile)).rejects.toThrow();

      const child = spawn(process.execPath, [ENTRY], {
        env: { PATH: process.env.PATH ?? '', PORT: '0', SVC_DATA_DIR: own, SVC_TEMPORAL_UI_PORT: 'off' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      const exited = exitCode(child);
      // PostgreSQL is up (its lock file exists): the service is still starting.
      while (
        !(await fs.access(lockFile).then(
          () => true,
          () => false,
        ))
      )
        await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"shutting down"');
      await expect(fs.access(lockFile)).rejects.toThrow();
    } finally {
      await fs.rm(own, { recursive: true, force: true });
    }
  }, 60_000);

  it('fails fast with a readable message on bad configuration', async () => {
    const child = spawn(process.execPath, [ENTRY], {
      env: { PATH: process.env.PATH ?? '', PORT: 'nope' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    expect(await exitCode(child)).toBe(1);
    expect(err).toMatch(/^svc: Invalid configuration:\n {2}PORT: /);
    expect(err).not.toMatch(/at .*\.ts:\d+/);
  });
});
