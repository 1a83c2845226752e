import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { progress } from '@clack/prompts';
import { type Command, Option } from 'commander';
import { type AppAddress, appPath, defaultNamespace } from '../../util/app-address.ts';
import { collectFiles, readManifest, validateLocally } from '../../util/app-folder.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { CliError, EXIT } from '../../util/errors.ts';
import { rememberUpload } from '../../util/folder-state.ts';
import { BUMPS, type Bump, bumpVersion } from '../../util/version-bump.ts';
import { type UploadedVersion, type UploadReport, uploadFiles } from './upload.ts';
import { canAsk, takenVersion, versionConflict, versionInstead } from './version-taken.ts';

type DeployOptions = { notes?: string; dryRun?: boolean; bump?: Bump };
type AppView = { versions: { build: number; status: string }[] };

export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description('Validate the app folder and upload it as a new version (only the files the service does not hold yet)')
    .argument('[dir]', 'the app folder', '.')
    .option('--notes <text>', 'notes kept with the version')
    .option('--dry-run', 'validate on the service and show the plan; nothing is stored (with --bump, the manifest file is left as it is)')
    .addOption(
      new Option(
        '--bump <part>',
        'raise the manifest’s version first (semver: 1.2.3 → 1.2.4, 1.3.0, 2.0.0 or 1.2.4-0) and write it back',
      ).choices(BUMPS),
    )
    .action(withContext(deploy));
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function deploy(ctx: Context, dir: string, options: DeployOptions): Promise<void> {
  const client = ctx.client();
  const folder = await readManifest(dir);
  let bumped = options.bump ? bumpManifest(folder.manifest, options.bump) : undefined;
  let manifest = bumped?.manifest ?? folder.manifest;
  const files = await collectFiles(dir);
  let valid = validateLocally(manifest, files);
  const app: AppAddress = { namespace: folder.namespace ?? (await defaultNamespace(client)), slug: valid.manifest.slug };
  // At a terminal, a number taken by other content is found before the upload and the next one offered.
  const taken = canAsk(ctx) ? await takenVersion(client, app, valid.manifest.version, valid.digest) : undefined;
  if (taken) {
    const next = await versionInstead(taken);
    bumped = { manifest: { ...(manifest as Record<string, unknown>), version: next }, from: bumped?.from ?? taken.version };
    manifest = bumped.manifest;
    valid = validateLocally(manifest, files);
  }
  // Written back only once the bundle is valid, so a refused deploy leaves the folder as it was.
  if (bumped && !options.dryRun) await writeFile(folder.file, `${JSON.stringify(manifest, null, 2)}\n`);
  const bump = bumped && { from: bumped.from, to: valid.manifest.version, file: basename(folder.file) };
  const bumpLines = bump ? [`Version raised ${bump.from} → ${bump.to}${options.dryRun ? '' : ` in ${bump.file}`}.`] : [];
  const bar = ctx.out.interactive ? progress({ output: process.stderr, max: 100 }) : undefined;
  bar?.start(`Uploading ${app.namespace}/${app.slug} ${valid.manifest.version}`);
  let shown = 0;
  let report: UploadReport;
  try {
    report = await uploadFiles(client, app, manifest, files, {
      notes: options.notes,
      dryRun: options.dryRun,
      onProgress: (sent, total) => {
        const percent = Math.floor((sent / total) * 100);
        bar?.advance(percent - shown, `Uploading ${kib(sent)} of ${kib(total)}`);
        shown = percent;
      },
    });
  } catch (error) {
    bar?.error('Upload failed');
    // Refused by the service (no terminal to ask at, or taken meanwhile): the refusal names --bump.
    const conflict = error instanceof CliError && error.extra.code === 'version_conflict';
    const taken = conflict ? await takenVersion(client, app, valid.manifest.version, valid.digest) : undefined;
    if (taken) throw versionConflict(taken, { requestId: (error as CliError).extra.requestId });
    throw error;
  }
  bar?.stop(`Uploaded ${kib(report.bytesSent)}`);
  const upload = { filesSent: report.filesSent, filesReused: report.filesReused, bytesSent: report.bytesSent };
  if ('dryRun' in report.answer) {
    const answer = report.answer;
    ctx.out.result({ dryRun: true, plan: answer.plan, upload, ...(bump ? { bump } : {}) }, () => [
      ...bumpLines,
      `Dry run: the service accepted ${app.namespace}/${app.slug} ${valid.manifest.version}; nothing was stored.`,
      `digest:   ${valid.digest}`,
      // The service's: it knows where it serves the SDK (sdk_host_blocked).
      ...warningLines(answer.plan.warnings),
    ]);
    return;
  }
  const uploaded = report.answer as UploadedVersion;
  await rememberUpload(dir, { baseUrl: ctx.baseUrl, ...app, version: uploaded.version, build: uploaded.build });
  const view = await client.request<AppView>('GET', appPath(app));
  const status = view.versions.find((v) => v.build === uploaded.build)?.status ?? 'untested';
  ctx.out.result({ ...uploaded, status, upload, ...(bump ? { bump } : {}) }, () => [
    ...bumpLines,
    uploaded.created
      ? `${ctx.out.style('green', '✓')} Deployed ${app.namespace}/${app.slug} ${uploaded.version} as build ${uploaded.buildLabel}.`
      : `${ctx.out.style('green', '✓')} ${app.namespace}/${app.slug} ${uploaded.version} is already build ${uploaded.buildLabel} (identical content).`,
    `version:  ${uploaded.version}`,
    `build:    ${uploaded.buildLabel}`,
    `digest:   ${uploaded.digest}`,
    `status:   ${status}`,
    `sent:     ${report.filesSent} file(s), ${kib(report.bytesSent)}; ${report.filesReused} already stored`,
    ...warningLines(uploaded.warnings),
    ...(uploaded.created ? ['Next: `svc test` to put it in the test channel.'] : []),
  ]);
}

/** The manifest with its version raised (the file's other fields as they were). */
function bumpManifest(manifest: unknown, bump: Bump): { manifest: Record<string, unknown>; from: string } {
  const written = (manifest ?? {}) as Record<string, unknown>;
  if (typeof written !== 'object' || Array.isArray(written) || typeof written.version !== 'string') {
    throw new CliError('--bump: the manifest has no "version" to raise.', EXIT.usage, { code: 'manifest_invalid' });
  }
  return { manifest: { ...written, version: bumpVersion(written.version, bump) }, from: written.version };
}

function warningLines(warnings: readonly { path?: string; code: string; message: string }[]): string[] {
  return warnings.map((w) => `warning:  ${w.path ? `${w.path}: ` : ''}${w.message} (${w.code})`);
}
