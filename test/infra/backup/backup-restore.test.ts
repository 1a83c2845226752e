import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { askAdminSocket } from '../../../infra/backup/admin-socket.ts';
import { createBackup, restoreBackup } from '../../../infra/backup/data-folder-backup.ts';
import { type RunningService, startService } from '../../../service.ts';
import { appScheduleId } from '../../../workflows/contract.ts';
import { injected, rawGet, release, ticketCookie } from '../../support/hosting.ts';
import { bearer, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { exitCode } from '../../support/process.ts';
import { caller, TEST_OPERATOR, TEST_PASSWORD_HASHING } from '../../support/service.ts';

// The restore drill of docs/operators/backups.md on the embedded default (embedded PostgreSQL and
// the embedded Temporal server's state file in SVC_DATA_DIR): seed a service, back it up with
// `npm run backup -- create` while it runs, write more, stop it, restore into a fresh data folder
// with `npm run backup -- restore`, start a service there, and find everything from before the
// backup and nothing from after. One service start per phase.

const ENTRY = path.resolve('backup.ts');
let root: string;
let before: Service | undefined;
let after: Service | undefined;

type Service = RunningService & { call: ReturnType<typeof caller> };

/** The embedded default on `dataDir`, in this process (`npm start` as a library). */
async function startEmbedded(dataDir: string): Promise<Service> {
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_TEMPORAL_UI_PORT: 'off',
    SVC_OPERATOR_LOGIN: TEST_OPERATOR.login,
    SVC_OPERATOR_PASSWORD: TEST_OPERATOR.password,
  });
  const service = await startService(config, { role: 'all', logger: pino({ level: 'silent' }), passwordHashing: TEST_PASSWORD_HASHING });
  return { ...service, call: caller(service.url!) };
}

/** `npm run backup -- <args> --json` on `dataDir`. */
async function backupCommand(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: any }> {
  const child = spawn(process.execPath, [ENTRY, ...args, '--json'], {
    env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const code = await exitCode(child);
  return { code, out: JSON.parse(stdout) };
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-backup-'));
  // PostgreSQL runs as `postgres` when the tests run as root: it must reach the data folders.
  await fs.chmod(root, 0o755);
});
afterAll(async () => {
  await before?.stop();
  await after?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

const WORKFLOW = {
  description: 'Lists the developers every five minutes.',
  steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } }],
  trigger: { schedule: { every: '5m' } },
};
const SCRIPT = 'console.log("restored");';

describe('backup and restore of the embedded default', () => {
  it('restores every app, version, key and running schedule written before the backup, and nothing written after', async () => {
    const source = path.join(root, 'data');
    const backup = path.join(root, 'backup');
    const restored = path.join(root, 'restored');
    await fs.mkdir(source, { mode: 0o755 });

    before = await startEmbedded(source);
    const svc = before;
    await seedCompanies(svc);
    const dev = await passwordKey(svc, 'dana');
    await release(svc, dev, { namespace: 'cell-acme', slug: 'notes', version: '1.0.0' });
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'notes',
      version: '1.1.0',
      files: [
        { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>notes</title>' },
        { path: 'app.js', encoding: 'utf8', content: SCRIPT },
      ],
    });
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'ticker',
      version: '1.0.0',
      manifest: { sdk: ['semantic'], workflow: WORKFLOW },
    });
    const temporal = svc.temporal!.client;
    const tickerId = (await svc.deps.db.selectFrom('apps').select('id').where('slug', '=', 'ticker').executeTakeFirstOrThrow()).id;
    const schedule = temporal.schedule.getHandle(appScheduleId(tickerId));
    await expect.poll(async () => (await schedule.describe().catch(() => undefined))?.spec.intervals?.[0]?.every).toBe(300_000);
    const scheduled = await schedule.describe();

    const created = await backupCommand(source, ['create', backup]);
    expect([created.code, created.out.ok], JSON.stringify(created.out)).toEqual([0, true]);
    expect(created.out.backup).toMatchObject({
      online: true,
      postgres: { method: 'base-backup', serverVersion: expect.stringMatching(/^18\./) },
      temporal: { file: 'temporal/temporal.sqlite' },
      elsewhere: [],
    });
    expect(created.out.backup.postgres.walSegments).toBeGreaterThanOrEqual(1);
    expect(created.out.backup.files).toEqual(expect.arrayContaining(['postgres.password', 'temporal']));
    // A second backup into the same folder is refused (asked on the socket as the command asks); the first stays whole.
    const again = await askAdminSocket(source, { command: 'backup', directory: backup });
    expect(again).toMatchObject({ ok: false, error: { code: 'backup_target_not_empty' } });

    // Written after the backup: none of it may come back.
    await release(svc, dev, { namespace: 'cell-acme', slug: 'notes', version: '2.0.0' });
    await release(svc, dev, { namespace: 'cell-acme', slug: 'later', version: '1.0.0' });
    const laterKey = await passwordKey(svc, 'mo');
    const late = temporal.schedule.getHandle('after-the-backup');
    await temporal.schedule.create({
      scheduleId: 'after-the-backup',
      spec: { intervals: [{ every: '1h' }] },
      action: { type: 'startWorkflow', workflowType: 'probe', taskQueue: 'probe', workflowId: 'probe' },
    });
    expect((await late.describe()).scheduleId).toBe('after-the-backup');
    await before.stop();
    before = undefined;
    // Stopped, the folder is copied by the command itself: the cluster as it is, the state file through SQLite.
    const offline = await backupCommand(source, ['create', path.join(root, 'offline')]);
    expect([offline.code, offline.out.backup?.online, offline.out.backup?.postgres.method]).toEqual([0, false, 'cold-copy']);
    expect(offline.out.backup.temporal).toEqual({ file: 'temporal/temporal.sqlite' });

    // Restore refuses a folder that is not a finished backup and a data folder in use (not empty), then fills an empty one.
    await expect(restoreBackup(source, restored)).rejects.toMatchObject({ code: 'not_a_backup' });
    await expect(restoreBackup(backup, source)).rejects.toMatchObject({ code: 'data_folder_not_empty' });
    const done = await backupCommand(restored, ['restore', backup]);
    expect([done.code, done.out.ok], JSON.stringify(done.out)).toEqual([0, true]);

    // Not state, so not in the backup: the workflow bundle the first start cached, handed over to spare a second build.
    await fs.cp(path.join(source, 'cache'), path.join(restored, 'cache'), { recursive: true });
    after = await startEmbedded(restored);
    const back = after;
    // The key authenticates (its hash was restored); the one made after the backup does not exist.
    expect((await back.call('GET', '/api/v1/developer/me', { headers: bearer(dev) })).status).toBe(200);
    expect((await back.call('GET', '/api/v1/developer/me', { headers: bearer(laterKey) })).status).toBe(401);
    const apps = (await back.call('GET', '/api/v1/developer/apps', { headers: bearer(dev) })).body.data.apps;
    expect(apps.map((a: { slug: string }) => a.slug).sort()).toEqual(['notes', 'ticker']);
    const notes = (await back.call('GET', '/api/v1/developer/apps/cell-acme/notes', { headers: bearer(dev) })).body.data;
    expect(notes.versions.map((v: { version: string }) => v.version).sort()).toEqual(['1.0.0', '1.1.0']);
    // Its files (in PostgreSQL, the default blob store) are served.
    const page = await rawGet(`${back.addresses.productionBase}/cell-acme/apps/notes`, { cookie: await signIn(back, 'dana') });
    expect(page.status).toBe(200);
    const file = await rawGet(`${injected(page.text).base}app.js`, { cookie: ticketCookie(page) });
    expect([file.status, file.text]).toEqual([200, SCRIPT]);

    // The schedule is the one the backup's Temporal state held (not a new one made at start), still running.
    const restoredSchedule = await back.temporal!.client.schedule.getHandle(appScheduleId(tickerId)).describe();
    expect(restoredSchedule.info.createdAt).toEqual(scheduled.info.createdAt);
    expect(restoredSchedule.state.paused).toBe(false);
    expect(restoredSchedule.info.nextActionTimes[0]!.getTime()).toBeGreaterThan(Date.now());
    expect(restoredSchedule.action).toEqual(scheduled.action);
    await expect(back.temporal!.client.schedule.getHandle('after-the-backup').describe()).rejects.toThrow(/not found/i);
  }, 120_000);

  it('refuses wrong usage and an external PostgreSQL with exit code 2', async () => {
    const dataDir = path.join(root, 'unused');
    const bare = await backupCommand(dataDir, []);
    expect([bare.code, bare.out.error.code]).toEqual([2, 'usage']);
    const external = await backupCommand(dataDir, ['create', path.join(root, 'x')], { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/svc' });
    expect([external.code, external.out.error.code]).toEqual([2, 'usage']);
    expect(external.out.error.message).toMatch(/pg_dump/);
  });

  it('leaves the backup folder empty when a backup fails half-way', async () => {
    const dataDir = path.join(root, 'broken');
    await fs.mkdir(path.join(dataDir, 'postgres'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
    await fs.mkdir(path.join(dataDir, 'temporal'));
    await fs.writeFile(
      path.join(dataDir, 'temporal', 'temporal.sqlite'),
      'not a database, just text that is long enough to fill a header....',
    );
    const target = path.join(root, 'half-way');
    const source = { dataDir, postgresUrl: undefined, copyTemporalState: undefined, elsewhere: [] };
    // The cluster is copied, then the state file cannot be: nothing of the attempt stays.
    await expect(createBackup(source, target)).rejects.toMatchObject({ code: 'backup_failed' });
    expect(await fs.readdir(target)).toEqual([]);
  });
});
