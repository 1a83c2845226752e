import path from 'node:path';
import type { AdminAnswer, AdminRequest } from './admin-socket.ts';
import { BackupError, type BackupSource, createBackup } from './data-folder-backup.ts';

/** The settings that say where state lives outside the data folder. */
export interface StateLocations {
  dataDir: string;
  companyRoot: string;
  /** The simulated cloud's folder (SVC_CLOUD_PROVIDER=local), or undefined. */
  localCloudDir: string | undefined;
  blobStore: { kind: 'postgres' } | { kind: 's3'; bucket: string; prefix: string };
}

const inside = (dir: string, parent: string) => !path.relative(parent, dir).startsWith('..');

/** What a backup of the data folder does not hold, for the manifest and the operator. */
export function stateElsewhere(where: StateLocations): { what: string; where: string }[] {
  const elsewhere: { what: string; where: string }[] = [];
  if (!inside(where.companyRoot, where.dataDir)) elsewhere.push({ what: 'company folders (SVC_COMPANY_ROOT)', where: where.companyRoot });
  if (where.localCloudDir && !inside(where.localCloudDir, where.dataDir))
    elsewhere.push({ what: 'simulated cloud instances (SVC_LOCAL_CLOUD_DIR)', where: where.localCloudDir });
  if (where.blobStore.kind === 's3') {
    elsewhere.push({ what: 'version files (SVC_BLOB_STORE)', where: `s3://${where.blobStore.bucket}/${where.blobStore.prefix}` });
  }
  return elsewhere;
}

/** Answers admin-socket requests with backups of `source`, one at a time. */
export function backupRequests(source: BackupSource): (request: AdminRequest) => Promise<AdminAnswer> {
  let running = false;
  return async (request) => {
    if (request?.command !== 'backup' || typeof request.directory !== 'string' || !path.isAbsolute(request.directory)) {
      return { ok: false, error: { code: 'invalid_request', message: 'expected {"command": "backup", "directory": <absolute path>}' } };
    }
    if (running) return { ok: false, error: { code: 'busy', message: 'a backup of this data folder is already running' } };
    running = true;
    try {
      return { ok: true, result: await createBackup(source, request.directory) };
    } catch (err) {
      return { ok: false, error: failure(err) };
    } finally {
      running = false;
    }
  };
}

export function failure(err: unknown): { code: string; message: string } {
  if (err instanceof BackupError) return { code: err.code, message: err.message };
  return { code: 'backup_failed', message: err instanceof Error ? err.message : String(err) };
}
