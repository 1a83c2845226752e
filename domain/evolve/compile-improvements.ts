import type { BundleFileInput, StoredFileInput } from '../../schemas/bundle/index.ts';
import type { CompileInput } from '../../schemas/evolve.ts';
import type { UploadInput } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { blobBytes } from '../hosting/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { developedApp, governingVersion } from './evolve-app.ts';
import { renderOverlay, resolveOverlay } from './overlay.ts';

const PAGE = /\.html?$/;

/**
 * The bundle of a new version with the app's company-wide improvements folded in (spec: `baked`):
 * the governing version's pages with the overlay written into them, its other files by their
 * stored hashes, its manifest with the new number and the folded improvements added to
 * `evolve.baked` (so they stop applying at runtime on that version). It is then uploaded as any
 * bundle (validated, `app.deploy`: a developer key), and tested and published as usual.
 */
export async function compileImprovements(
  deps: Pick<DomainDeps, 'blobs'> & { db: DbOrTrx },
  principal: Principal,
  namespace: string,
  input: CompileInput,
): Promise<UploadInput & { notes: string | undefined }> {
  authorize(principal, 'app.deploy', { namespace });
  const app = await developedApp(deps.db, principal, namespace, input.slug);
  const version = await governingVersion(deps.db, app);
  const rows = await deps.db
    .selectFrom('evolve_improvements')
    .select(['id', 'changes'])
    .where('app_id', '=', app.id)
    .where('scope', '=', 'company')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const overlay = resolveOverlay(
    `${app.namespace}/${app.slug}`,
    version,
    rows.map((r) => ({ id: r.id, changes: r.changes as never })),
  );
  if (overlay.improvements.length === 0) {
    throw new DomainError('conflict', `${namespace}/${input.slug} ${version.version} has no company-wide improvement left to fold in.`, {
      details: { version: version.version },
    });
  }
  const files: BundleFileInput[] = [];
  const storedFiles: StoredFileInput[] = [];
  for (const [path, file] of version.files) {
    if (!PAGE.test(path)) {
      storedFiles.push({ path, sha256: file.hex });
      continue;
    }
    const html = (await blobBytes(deps, file.sha256)).toString('utf8');
    files.push({ path, encoding: 'utf8', content: renderOverlay(html, overlay, version.manifest) });
  }
  const evolve = version.manifest.evolve;
  const manifest = {
    ...version.manifest,
    version: input.version,
    evolve: { ...evolve, baked: [...(evolve?.baked ?? []), ...overlay.improvements] },
  };
  return { manifest, files, storedFiles, notes: input.notes ?? `Folds in ${overlay.improvements.join(', ')}.` };
}
