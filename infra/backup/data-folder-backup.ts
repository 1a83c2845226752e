import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { chownTree, copyTree } from './copy-tree.ts';
import { type BaseBackupResult, coldCopy, onlineBaseBackup } from './postgres-base-backup.ts';

// A backup of the embedded default's data folder (SVC_DATA_DIR): its PostgreSQL cluster (a base
// backup while svc runs, a copy of the stopped cluster otherwise), the embedded Temporal server's
// state file (a consistent copy, taken by the server that holds it), and every other file of the
// folder but the caches. Restored into an empty data folder, then started as usual.

export const MANIFEST = 'svc-backup.json';
const FORMAT = 'svc-data-folder-backup';
const FORMAT_VERSION = 1;
const TEMPORAL_STATE = 'temporal/temporal.sqlite';

export class BackupError extends Error {
  override name = 'BackupError';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export interface BackupManifest {
  format: typeof FORMAT;
  formatVersion: number;
  createdAt: string;
  /** Taken from a running service (base backup, state copied by its Temporal server) or a stopped folder. */
  online: boolean;
  postgres: BaseBackupResult;
  /** The embedded Temporal server's state, when this folder has one (unset TEMPORAL_ADDRESS). */
  temporal: { file: string } | null;
  /** The data folder's other files and folders, copied as they are. */
  files: string[];
  /** State of this service that lives elsewhere and is not in the backup: back it up apart. */
  elsewhere: { what: string; where: string }[];
}

/** What the data folder holds that a backup leaves out: caches (rebuilt), the running process's files. */
const NOT_BACKED_UP = new Set(['postgres', 'postgres.owner', 'cache', 'run', MANIFEST]);
const TEMPORAL_RUNTIME = new Set([TEMPORAL_STATE, `${TEMPORAL_STATE}-wal`, `${TEMPORAL_STATE}-shm`, `${TEMPORAL_STATE}-journal`]);

export interface BackupSource {
  dataDir: string;
  /** The running service's PostgreSQL (a superuser URL); undefined: the cluster is stopped. */
  postgresUrl: string | undefined;
  /** The running embedded Temporal server's copy of its state; undefined: none runs (the file, if any, is copied). */
  copyTemporalState: ((file: string) => Promise<void>) | undefined;
  /** State outside the data folder, named in the manifest. */
  elsewhere: { what: string; where: string }[];
}

/** Writes a backup of `source` into `directory` (made if missing; refused unless empty). */
export async function createBackup(source: BackupSource, directory: string): Promise<BackupManifest> {
  const clusterDir = path.join(source.dataDir, 'postgres');
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    throw new BackupError('not_a_data_folder', `${source.dataDir} holds no embedded PostgreSQL (no postgres/PG_VERSION)`);
  }
  await prepareEmptyFolder(directory, 'backup_target_not_empty', 'the backup folder');
  try {
    return await writeBackup(source, clusterDir, directory);
  } catch (err) {
    // The folder was empty: a failed backup leaves it so, ready for the next attempt.
    for (const entry of await fs.readdir(directory)) await fs.rm(path.join(directory, entry), { recursive: true, force: true });
    throw err;
  }
}

async function writeBackup(source: BackupSource, clusterDir: string, directory: string): Promise<BackupManifest> {
  const createdAt = new Date().toISOString();
  const postgres = source.postgresUrl
    ? await onlineBaseBackup(source.postgresUrl, clusterDir, path.join(directory, 'postgres'), `svc backup ${createdAt}`)
    : await coldCopy(clusterDir, path.join(directory, 'postgres'));

  let temporal: BackupManifest['temporal'] = null;
  if (source.copyTemporalState || existsSync(path.join(source.dataDir, TEMPORAL_STATE))) {
    await fs.mkdir(path.join(directory, 'temporal'), { recursive: true, mode: 0o700 });
    const target = path.join(directory, TEMPORAL_STATE);
    if (source.copyTemporalState) await source.copyTemporalState(target);
    else copyStoppedState(path.join(source.dataDir, TEMPORAL_STATE), target);
    await fs.chmod(target, 0o600);
    temporal = { file: TEMPORAL_STATE };
  }

  const files: string[] = [];
  await copyTree(source.dataDir, directory, {
    rule: (relative) => {
      if (NOT_BACKED_UP.has(relative) || TEMPORAL_RUNTIME.has(relative)) return 'skip';
      if (!relative.includes('/')) files.push(relative);
      return 'copy';
    },
  });
  const manifest: BackupManifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    createdAt,
    online: source.postgresUrl !== undefined,
    postgres,
    temporal,
    files: files.sort(),
    elsewhere: source.elsewhere,
  };
  // Written last: a folder without it is an unfinished backup, which restore refuses.
  await fs.writeFile(path.join(directory, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/**
 * A consistent copy of the state file of a stopped Temporal server (a running one holds it
 * exclusively and copies it itself); SQLite's VACUUM INTO reads it in one transaction.
 */
function copyStoppedState(file: string, target: string): void {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { timeout: 0 });
    db.prepare('VACUUM INTO ?').run(target);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new BackupError(
      /locked|busy/i.test(message) ? 'state_file_in_use' : 'backup_failed',
      /locked|busy/i.test(message)
        ? `${file} is held by a running Temporal server that cannot copy it (a svc without the admin socket?): stop svc, or run the backup through it`
        : `cannot copy ${file}: ${message}`,
    );
  } finally {
    db?.close();
  }
}

/** Reads and checks a backup's manifest. */
export async function readManifest(directory: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(directory, MANIFEST), 'utf8'));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new BackupError(
      'not_a_backup',
      missing
        ? `${directory} is not a finished svc backup (no ${MANIFEST}: the backup did not complete, or this is another folder)`
        : `${directory}/${MANIFEST} is unreadable: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (manifest?.format !== FORMAT || manifest.formatVersion !== FORMAT_VERSION) {
    throw new BackupError('not_a_backup', `${directory}/${MANIFEST} is not a version ${FORMAT_VERSION} svc data folder backup`);
  }
  return manifest;
}

/**
 * Puts a backup in place as the data folder `dataDir`, which must be missing or empty (no running
 * service uses it then). The next start replays the WAL the backup kept and opens the copied
 * Temporal state.
 */
export async function restoreBackup(directory: string, dataDir: string): Promise<BackupManifest> {
  const manifest = await readManifest(directory);
  await prepareEmptyFolder(dataDir, 'data_folder_not_empty', 'the data folder to restore into');
  await copyTree(directory, dataDir, { rule: (relative) => (relative === MANIFEST ? 'skip' : 'copy') });
  // PostgreSQL refuses a data folder others may read, and (as root) one it does not own.
  await fs.chmod(path.join(dataDir, 'postgres'), 0o700);
  if (os.userInfo().uid === 0) {
    const id = async (flag: string) => Number((await promisify(execFile)('id', [flag, 'postgres'])).stdout.trim());
    await chownTree(path.join(dataDir, 'postgres'), await id('-u'), await id('-g'));
  }
  return manifest;
}

async function prepareEmptyFolder(directory: string, code: string, what: string): Promise<void> {
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  const entries = await fs.readdir(directory);
  if (entries.length) {
    throw new BackupError(code, `${what} ${directory} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''})`);
  }
}
