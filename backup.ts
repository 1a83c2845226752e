import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { askAdminSocket } from './infra/backup/admin-socket.ts';
import { failure, stateElsewhere } from './infra/backup/backup-requests.ts';
import { BackupError, type BackupManifest, createBackup, restoreBackup } from './infra/backup/data-folder-backup.ts';

// `npm run backup -- create <dir>` and `npm run backup -- restore <dir>`: the embedded default's
// data folder (SVC_DATA_DIR, read from the same environment as `npm start`). create asks the
// running service for the backup (its admin socket), or copies a stopped folder itself; restore
// fills an empty data folder, which `npm start` then opens. It runs beside the data folder, not
// through the HTTP API: the `svc` command line is a client of the API and may run anywhere.
// Exit codes as the svc command line's: 0 done, 1 failed, 2 wrong usage.

const USAGE = `usage: npm run backup -- create <backup-folder> [--json]
       npm run backup -- restore <backup-folder> [--json]
SVC_DATA_DIR (and the rest of the environment) as for npm start; see docs/operators/backups.md.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<{ data: unknown; lines: string[] }> {
  const { positionals } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, allowPositionals: true });
  const [verb, folder, ...rest] = positionals;
  if ((verb !== 'create' && verb !== 'restore') || !folder || rest.length) throw new UsageError(USAGE);
  const config = loadConfig();
  if (config.databaseUrl) {
    throw new UsageError(
      'DATABASE_URL is set: this command backs up the embedded PostgreSQL of SVC_DATA_DIR. Back up an external PostgreSQL with its own tools (pg_dump, base backups): docs/operators/backups.md.',
    );
  }
  const directory = path.resolve(folder);
  const elsewhere = stateElsewhere({
    dataDir: config.dataDir,
    companyRoot: config.companyRoot.allowed,
    localCloudDir: config.cloud.kind === 'local' ? config.cloud.dir : undefined,
    blobStore: config.blobStore,
  });
  if (verb === 'restore') {
    const manifest = await restoreBackup(directory, config.dataDir);
    return {
      data: { restored: directory, dataDir: config.dataDir, backup: manifest },
      lines: [
        `Restored the backup of ${manifest.createdAt} into ${config.dataDir}.`,
        `Start svc on it (SVC_DATA_DIR=${config.dataDir} npm start): PostgreSQL replays the WAL the backup kept at its first start.`,
        ...elsewhereLines(manifest, 'Restore apart'),
      ],
    };
  }
  const answer = await askAdminSocket(config.dataDir, { command: 'backup', directory });
  let manifest: BackupManifest;
  if (answer) {
    if (!answer.ok) throw new BackupError(answer.error.code, answer.error.message);
    manifest = answer.result as BackupManifest;
  } else {
    assertPostgresStopped(config.dataDir);
    manifest = await createBackup({ dataDir: config.dataDir, postgresUrl: undefined, copyTemporalState: undefined, elsewhere }, directory);
  }
  const pg = manifest.postgres;
  return {
    data: { directory, dataDir: config.dataDir, backup: manifest },
    lines: [
      `Backed up ${config.dataDir} into ${directory} (${manifest.online ? 'svc running' : 'svc stopped'}).`,
      pg.method === 'base-backup'
        ? `  PostgreSQL ${pg.serverVersion}: base backup, ${pg.files} files, WAL ${pg.startLsn} to ${pg.stopLsn} (${pg.walSegments} segments)`
        : `  PostgreSQL ${pg.serverVersion}: copy of the stopped cluster, ${pg.files} files`,
      `  Temporal state: ${manifest.temporal ? manifest.temporal.file : 'none in this folder (TEMPORAL_ADDRESS set)'}`,
      `  Other files: ${manifest.files.join(', ') || 'none'}`,
      ...elsewhereLines(manifest, 'Back up apart'),
    ],
  };
}

function elsewhereLines(manifest: BackupManifest, head: string): string[] {
  return manifest.elsewhere.length ? [`${head} (not in this backup):`, ...manifest.elsewhere.map((e) => `  ${e.what}: ${e.where}`)] : [];
}

/** A folder whose PostgreSQL runs without a service to ask (an older svc, or one started by hand) is not copied as files. */
function assertPostgresStopped(dataDir: string): void {
  const lock = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(lock)) return;
  const pid = Number(readFileSync(lock, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
  }
  throw new BackupError(
    'postgres_running',
    `PostgreSQL (pid ${pid}) runs on ${dataDir} but no svc answers on its admin socket: stop it, or start svc and run the backup again`,
  );
}

const json = process.argv.includes('--json');
try {
  const { data, lines } = await main(process.argv.slice(2));
  process.stdout.write(json ? `${JSON.stringify({ ok: true, ...(data as object) }, null, 2)}\n` : `${lines.join('\n')}\n`);
} catch (err) {
  const usage = err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  const error = usage ? { code: 'usage', message: (err as Error).message } : failure(err);
  if (json) process.stdout.write(`${JSON.stringify({ ok: false, error }, null, 2)}\n`);
  else process.stderr.write(`svc backup: ${error.code}: ${error.message}\n`);
  process.exitCode = usage ? 2 : 1;
}
