import { progress } from '@clack/prompts';
import type { Command } from 'commander';
import { type AppAddress, appPath, defaultNamespace } from '../../util/app-address.ts';
import { collectFiles, readManifest, validateLocally } from '../../util/app-folder.ts';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { type UploadedVersion, type UploadReport, uploadFiles } from './upload.ts';

type DeployOptions = { notes?: string; dryRun?: boolean };
type AppView = { versions: { build: number; status: string }[] };

export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description('Validate the app folder and upload it as a new version (only the files the service does not hold yet)')
    .argument('[dir]', 'the app folder', '.')
    .option('--notes <text>', 'notes kept with the version')
    .option('--dry-run', 'validate on the service and show the plan; nothing is stored')
    .action(withContext(deploy));
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function deploy(ctx: Context, dir: string, options: DeployOptions): Promise<void> {
  const client = ctx.client();
  const folder = await readManifest(dir);
  const files = await collectFiles(dir);
  const valid = validateLocally(folder.manifest, files);
  const app: AppAddress = { namespace: folder.namespace ?? (await defaultNamespace(client)), slug: valid.manifest.slug };
  const bar = ctx.out.interactive ? progress({ output: process.stderr, max: 100 }) : undefined;
  bar?.start(`Uploading ${app.namespace}/${app.slug} ${valid.manifest.version}`);
  let shown = 0;
  let report: UploadReport;
  try {
    report = await uploadFiles(client, app, folder.manifest, files, {
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
    throw error;
  }
  bar?.stop(`Uploaded ${kib(report.bytesSent)}`);
  const upload = { filesSent: report.filesSent, filesReused: report.filesReused, bytesSent: report.bytesSent };
  if ('dryRun' in report.answer) {
    const answer = report.answer;
    ctx.out.result({ dryRun: true, plan: answer.plan, upload }, () => [
      `Dry run: the service accepted ${app.namespace}/${app.slug} ${valid.manifest.version}; nothing was stored.`,
      `digest:   ${valid.digest}`,
      ...warningLines(valid.warnings),
    ]);
    return;
  }
  const uploaded = report.answer as UploadedVersion;
  const view = await client.request<AppView>('GET', appPath(app));
  const status = view.versions.find((v) => v.build === uploaded.build)?.status ?? 'untested';
  ctx.out.result({ ...uploaded, status, upload }, () => [
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

function warningLines(warnings: readonly { path?: string; code: string; message: string }[]): string[] {
  return warnings.map((w) => `warning:  ${w.path ? `${w.path}: ` : ''}${w.message} (${w.code})`);
}
