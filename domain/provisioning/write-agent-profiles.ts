import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Db } from '../db/index.ts';
import { agentRid } from '../resources/index.ts';
import { newId } from '../security/index.ts';
import { AGENTS_FOLDER, DESCRIPTION_FILE, describeProfile, EXECUTIVE_ROLES, LOG_FOLDER, profileName } from './catalog.ts';
import type { CompanyRootPolicy } from './company-root.ts';
import { findProfile, loadProvisioning, saveProfile } from './repository.ts';
import { type RunContext, runStep } from './run-step.ts';
import { ensureDirectory, ensureRoot, readFileNoFollow, writeFileAtomic } from './safe-paths.ts';

/** Where a refresh keeps a description that was edited by hand (the latest edit only). */
export const PREVIOUS_SUFFIX = '.previous';

const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex');

/**
 * Step agent-profiles: for each role the profile `<companyKey>-<role>` (an agent resource,
 * `ri.agents.svc.agent.<id>`, whose id never changes), its folder, log folder and description
 * file: created when missing, refreshed when its text changed, else reused. A description edited
 * by hand is copied to `description.md.previous` before it is refreshed.
 */
export async function writeAgentProfiles(
  { db, companyRoot }: { db: Db; companyRoot: CompanyRootPolicy },
  run: RunContext,
  cellId: string,
): Promise<{ profiles: number }> {
  return runStep(db, run, 'agent-profiles', async (changes) => {
    const record = await loadProvisioning(db, cellId);
    const root = await ensureRoot(companyRoot, record.root_path);
    for (const { folder, role, duties } of EXECUTIVE_ROLES) {
      const name = profileName(record.company_key, role);
      await ensureDirectory(root, [folder]);
      await ensureDirectory(root, [AGENTS_FOLDER, name, LOG_FOLDER]);
      const folderPath = path.join(root, folder);
      const profilePath = path.join(root, AGENTS_FOLDER, name);
      const descriptionPath = path.join(profilePath, DESCRIPTION_FILE);
      const text = describeProfile({
        name,
        nameEn: record.name_en,
        nameZh: record.name_zh,
        companyKey: record.company_key,
        cellId,
        duties,
        folderPath,
        profilePath,
        logPath: path.join(profilePath, LOG_FOLDER),
      });
      const existing = await readFileNoFollow(descriptionPath);
      const row = await findProfile(db, record.company_id, role);
      const same = existing?.toString('utf8') === text;
      // Edited by hand since the last write (its hash is not the recorded one): the edit is kept
      // next to it, never lost, and the change says so.
      const handEdited = !same && existing && row && sha256(existing) !== row.description_sha256;
      if (handEdited) await writeFileAtomic(`${descriptionPath}${PREVIOUS_SUFFIX}`, existing);
      if (!same) await writeFileAtomic(descriptionPath, text);
      const id = row?.id ?? newId('agt');
      await saveProfile(db, {
        id,
        rid: agentRid(id),
        companyId: record.company_id,
        role,
        name,
        folderPath,
        profilePath,
        descriptionPath,
        descriptionSha256: sha256(text),
      });
      changes.push({
        item: name,
        outcome: !row || !existing ? 'created' : same ? 'reused' : 'refreshed',
        ...(handEdited ? { note: `hand edit kept in ${DESCRIPTION_FILE}${PREVIOUS_SUFFIX}` } : {}),
      });
    }
    return { profiles: changes.length };
  });
}
