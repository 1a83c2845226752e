import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { type CopyRule, copyTree } from './copy-tree.ts';

// A physical copy of an embedded PostgreSQL cluster, taken while it runs, with PostgreSQL's
// low-level base backup API ("Making a Base Backup Using the Low Level API" in its manual) and the
// WAL that makes the copy consistent, as `pg_basebackup -X` would (the embedded server ships no
// pg_basebackup or pg_dump: only initdb, pg_ctl and postgres). The copy starts like a cluster after
// a crash: PostgreSQL reads backup_label and replays the WAL kept beside it up to the backup's end.

export interface BaseBackupResult {
  method: 'base-backup' | 'cold-copy';
  serverVersion: string | null;
  startLsn: string | null;
  stopLsn: string | null;
  walSegments: number;
  files: number;
}

/**
 * What a base backup leaves out, as pg_basebackup does: the WAL (copied apart, from the backup's
 * start to its stop), files of the running server, and folders whose contents are rebuilt at start.
 */
const EMPTIED = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
const RUNTIME_FILES = new Set(['postmaster.pid', 'postmaster.opts']);
const EARLIER_BACKUP_FILES = new Set(['backup_label', 'backup_label.old', 'tablespace_map', 'tablespace_map.old']);

function baseBackupRule(relative: string, isFolder: boolean): CopyRule {
  const name = path.posix.basename(relative);
  if (name.startsWith('pgsql_tmp') || name === 'pg_internal.init') return 'skip';
  if (relative === name) {
    if (isFolder && EMPTIED.has(name)) return 'empty-folder';
    if (RUNTIME_FILES.has(name) || EARLIER_BACKUP_FILES.has(name)) return 'skip';
  }
  return 'copy';
}

const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/**
 * Online base backup of the cluster in `clusterDir` (served at `url`, a superuser connection) into
 * `target`. A temporary physical replication slot, made before the backup starts, keeps every WAL
 * segment from then on until this session ends, so none the copy needs is recycled meanwhile.
 */
export async function onlineBaseBackup(url: string, clusterDir: string, target: string, label: string): Promise<BaseBackupResult> {
  const client = new pg.Client({ connectionString: url, application_name: 'svc-backup' });
  await client.connect();
  try {
    const serverVersion = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    const slot = `svc_backup_${process.pid}_${Date.now()}`;
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
    // Non-exclusive: the backup lasts as long as this session; `fast` checkpoints at once.
    const started = await client.query<{ lsn: string }>('SELECT pg_backup_start($1, true) AS lsn', [label]);
    let files: number;
    try {
      files = await copyTree(clusterDir, target, { rule: baseBackupRule, live: true });
    } catch (err) {
      await client.query('SELECT pg_backup_stop(false)').catch(() => {});
      throw err;
    }
    const stopped = await client.query<{ lsn: string; labelfile: string; spcmapfile: string | null }>(
      'SELECT lsn, labelfile, spcmapfile FROM pg_backup_stop(false)',
    );
    const { lsn: stopLsn, labelfile, spcmapfile } = stopped.rows[0]!;
    await fs.writeFile(path.join(target, 'backup_label'), labelfile, { mode: 0o600 });
    if (spcmapfile) await fs.writeFile(path.join(target, 'tablespace_map'), spcmapfile, { mode: 0o600 });
    // The WAL from the backup's start to its stop; pg_backup_stop has switched to a new segment,
    // so the one holding the stop position is complete.
    const range = await client.query<{ first: string; last: string }>(
      'SELECT pg_walfile_name($1::pg_lsn) AS first, pg_walfile_name($2::pg_lsn) AS last',
      [started.rows[0]!.lsn, stopLsn],
    );
    const { first, last } = range.rows[0]!;
    const wal = path.join(clusterDir, 'pg_wal');
    let walSegments = 0;
    for (const name of (await fs.readdir(wal)).sort()) {
      const segment = WAL_SEGMENT.test(name) && name >= first && name <= last;
      if (!segment && !name.endsWith('.history')) continue;
      await fs.copyFile(path.join(wal, name), path.join(target, 'pg_wal', name));
      await fs.chmod(path.join(target, 'pg_wal', name), 0o600);
      if (segment) walSegments++;
    }
    const segmentBytes = Number(
      (await client.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'wal_segment_size'")).rows[0]!.setting,
    );
    const expected = segmentIndex(last, segmentBytes) - segmentIndex(first, segmentBytes) + 1;
    if (walSegments !== expected) {
      throw new Error(`the WAL from ${first} to ${last} (${expected} segments) is not all in ${wal}: ${walSegments} found`);
    }
    await ensureWalFolders(target);
    return { method: 'base-backup', serverVersion, startLsn: started.rows[0]!.lsn, stopLsn, walSegments, files };
  } finally {
    // Ends the backup if it is still open and drops the temporary slot.
    await client.end();
  }
}

/** A segment's position in the WAL from its file name (timeline, then the LSN's high word and the segment in it). */
function segmentIndex(name: string, segmentBytes: number): number {
  return Number.parseInt(name.slice(8, 16), 16) * (2 ** 32 / segmentBytes) + Number.parseInt(name.slice(16), 16);
}

/** A copy of a stopped cluster: every file but the lock file (a cluster that crashed replays its WAL at start). */
export async function coldCopy(clusterDir: string, target: string): Promise<BaseBackupResult> {
  const files = await copyTree(clusterDir, target, {
    rule: (relative) => (RUNTIME_FILES.has(relative) ? 'skip' : 'copy'),
  });
  await ensureWalFolders(target);
  const version = (await fs.readFile(path.join(clusterDir, 'PG_VERSION'), 'utf8')).trim();
  return { method: 'cold-copy', serverVersion: version, startLsn: null, stopLsn: null, walSegments: 0, files };
}

/** pg_wal's own folders, as pg_basebackup makes them. */
async function ensureWalFolders(target: string): Promise<void> {
  for (const sub of ['archive_status', 'summaries']) await fs.mkdir(path.join(target, 'pg_wal', sub), { recursive: true, mode: 0o700 });
}
