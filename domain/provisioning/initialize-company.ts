import type { InitializeCompanyRequest } from '../../schemas/provisioning.ts';
import type { DbOrTrx } from '../db/index.ts';
import { newId } from '../security/index.ts';
import { type CompanyRootPolicy, resolveCompanyRoot } from './company-root.ts';
import { assertMetadataOnly } from './forbidden-data.ts';
import { findProvisioning, saveProvisioning } from './repository.ts';
import { type QueuedRun, requestProvisioning } from './request-provisioning.ts';

/**
 * F1: creates or reuses the company, stores what the operator asked for (metadata only) and
 * asks for a full run. Rerunnable: the company, the record and everything the run makes are
 * reused, so a second call changes nothing that exists. A rootPath outside the allowed root (or
 * in a refused directory) is refused here, before anything is stored or any run asked for.
 */
export async function initializeCompany(
  db: DbOrTrx,
  input: InitializeCompanyRequest & { accountId: string },
  companyRoot: CompanyRootPolicy,
): Promise<QueuedRun & { company: { cellId: string; outcome: 'created' | 'reused' }; record: 'created' | 'updated' | 'unchanged' }> {
  const { accountId, ...request } = input;
  assertMetadataOnly(request, '');
  await resolveCompanyRoot(companyRoot, request.rootPath);
  // ON CONFLICT: two first calls at once both go on with the one company, instead of one failing.
  const inserted = await db
    .insertInto('companies')
    .values({ id: newId('org'), cell_id: request.cellId, name: request.nameEn })
    .onConflict((oc) => oc.column('cell_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  const outcome = inserted ? 'created' : 'reused';
  const company =
    inserted ?? (await db.selectFrom('companies').select('id').where('cell_id', '=', request.cellId).executeTakeFirstOrThrow());
  const before = await findProvisioning(db, company.id);
  const { cellId: _cellId, ...settings } = request;
  const same =
    before &&
    before.company_key === settings.companyKey &&
    before.name_en === settings.nameEn &&
    before.name_zh === settings.nameZh &&
    before.root_path === settings.rootPath &&
    (['profile', 'accountId', 'region', 'instanceName'] as const).every((k) => before.cloud[k] === settings.cloud[k]);
  if (!same) await saveProvisioning(db, company.id, settings);
  const queued = await requestProvisioning(db, { cellId: request.cellId, part: 'all', accountId });
  return { ...queued, company: { cellId: request.cellId, outcome }, record: !before ? 'created' : same ? 'unchanged' : 'updated' };
}
