import type { StoredFileInput } from '../../../schemas/bundle/index.ts';
import { type AppAddress, appPath } from '../../util/app-address.ts';
import { type FolderFile, toBundleFile } from '../../util/app-folder.ts';
import type { ApiClient } from '../../util/client.ts';
import { CliError } from '../../util/errors.ts';

/** What the service answers to an upload (schemas/apps.ts UploadedVersion). */
export type UploadedVersion = {
  app: AppAddress;
  version: string;
  build: number;
  buildLabel: string;
  digest: string;
  created: boolean;
  warnings: { path?: string; code: string; message: string }[];
  skills: string[];
};

export type UploadReport = {
  /** The answer: the version, or `{dryRun, plan}` for a dry run (the plan: the version it would be). */
  answer: UploadedVersion | { dryRun: true; plan: UploadedVersion };
  filesSent: number;
  filesReused: number;
  /** Request body bytes of the upload (the stored-files questions not included). */
  bytesSent: number;
};

export type UploadOptions = {
  notes?: string | undefined;
  dryRun?: boolean | undefined;
  /** Send every file's content (the spec's plain bundle), skipping the stored-files question. */
  sendAll?: boolean;
  /** Called as body bytes go out. */
  onProgress?: (sent: number, total: number) => void;
};

/** Hashes per stored-files question (the route's limit). */
const HASHES_PER_QUESTION = 100;
const CHUNK_BYTES = 64 * 1024;

/** Which of these contents the namespace's versions already hold (asked 100 at a time). */
export async function storedContents(client: ApiClient, app: AppAddress, hashes: readonly string[]): Promise<Set<string>> {
  const distinct = [...new Set(hashes)];
  const stored = new Set<string>();
  for (let i = 0; i < distinct.length; i += HASHES_PER_QUESTION) {
    const batch = distinct.slice(i, i + HASHES_PER_QUESTION);
    const answer = await client.request<{ stored: string[] }>('GET', `${appPath(app)}/stored-files`, {
      query: { sha256: batch.join(',') },
    });
    for (const h of answer.stored) stored.add(h);
  }
  return stored;
}

function progressStream(body: Buffer, onProgress: UploadOptions['onProgress']): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) {
        controller.close();
        return;
      }
      const chunk = body.subarray(offset, offset + CHUNK_BYTES);
      offset += chunk.length;
      controller.enqueue(chunk);
      onProgress?.(offset, body.length);
    },
  });
}

/**
 * Uploads a folder's files as a version, sending only contents the service does not hold for
 * the namespace; the others go as `storedFiles` (by hash). If one of those vanished meanwhile
 * (content_not_stored), the whole bundle is sent once more.
 */
export async function uploadFiles(
  client: ApiClient,
  app: AppAddress,
  manifest: unknown,
  files: readonly FolderFile[],
  options: UploadOptions = {},
): Promise<UploadReport> {
  const stored = options.sendAll
    ? new Set<string>()
    : await storedContents(
        client,
        app,
        files.map((f) => f.sha256),
      );
  try {
    return await send(client, app, manifest, files, stored, options);
  } catch (error) {
    const problems = (error as CliError).extra?.details as { problems?: { code: string }[] } | undefined;
    const onlyMissing = problems?.problems?.length && problems.problems.every((p) => p.code === 'content_not_stored');
    if (!(error instanceof CliError) || stored.size === 0 || !onlyMissing) throw error;
    return send(client, app, manifest, files, new Set(), options);
  }
}

async function send(
  client: ApiClient,
  app: AppAddress,
  manifest: unknown,
  files: readonly FolderFile[],
  stored: ReadonlySet<string>,
  options: UploadOptions,
): Promise<UploadReport> {
  const storedFiles: StoredFileInput[] = files.filter((f) => stored.has(f.sha256)).map((f) => ({ path: f.path, sha256: f.sha256 }));
  const sent = files.filter((f) => !stored.has(f.sha256));
  const body = Buffer.from(
    JSON.stringify({
      manifest,
      files: sent.map(toBundleFile),
      ...(storedFiles.length > 0 ? { storedFiles } : {}),
      ...(options.notes !== undefined ? { notes: options.notes } : {}),
    }),
  );
  const answer = await client.request<UploadReport['answer']>('POST', `${appPath(app)}/versions`, {
    stream: { body: progressStream(body, options.onProgress), length: body.length },
    dryRun: options.dryRun,
  });
  return { answer, filesSent: sent.length, filesReused: storedFiles.length, bytesSent: body.length };
}
