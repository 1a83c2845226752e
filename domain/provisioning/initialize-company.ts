import path from 'node:path';
import type { InitializeCompanyRequest } from '../../schemas/provisioning.ts';
import type { DbOrTrx, PendingMove } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { type CompanyRootPolicy, isInside, resolveCompanyRoot } from './company-root.ts';
import { assertMetadataOnly } from './forbidden-data.ts';
import type { LiveRunObserver } from './live-runs.ts';
import {
  MOVABLE_FIELDS,
  type ParameterChange,
  type PlannedStep,
  parameterChanges,
  planSteps,
  STRUCTURAL_FIELDS,
  settingsOf,
} from './plan-initialization.ts';
import { activeRun, findProvisioning, lockCompany, saveProvisioning, setPendingMove } from './repository.ts';
import { type QueuedRun, requestProvisioning } from './request-provisioning.ts';

export interface InitializationAnswer extends QueuedRun {
  company: { cellId: string; outcome: 'created' | 'reused' };
  record: 'created' | 'updated' | 'unchanged';
  /** Every parameter whose stored value this call changed. */
  changes: ParameterChange[];
  /** What the run will do per instance, folder and profile. */
  plan: PlannedStep[];
}

const isStructural = (c: ParameterChange) => (STRUCTURAL_FIELDS as readonly string[]).includes(c.field);

/**
 * F1: creates or reuses the company, stores what the operator asked for (metadata only) and
 * asks for a full run. Rerunnable: with the stored parameters nothing that exists changes. A
 * changed companyKey, rootPath or cloud target is refused (409 conflict, `details.changes`)
 * unless `apply: "move"` asks to move the tree and rename the profiles (companyKey and rootPath
 * only); names are applied and reach the company record. While a run of the company goes (or
 * waits to start), other parameters are refused with its ids: a run is never re-parameterised.
 * Calls for one company are serialized by a lock on its row, so two moves at once move once.
 */
export async function initializeCompany(
  db: DbOrTrx,
  input: InitializeCompanyRequest & { accountId: string },
  deps: { companyRoot: CompanyRootPolicy; liveRuns?: LiveRunObserver | undefined },
): Promise<InitializationAnswer> {
  const { accountId, apply, ...request } = input;
  assertMetadataOnly(request, '');
  await resolveCompanyRoot(deps.companyRoot, request.rootPath);
  // ON CONFLICT: two first calls at once both go on with the one company, instead of one failing.
  const inserted = await db
    .insertInto('companies')
    .values({ id: newId('org'), cell_id: request.cellId, name: request.nameEn })
    .onConflict((oc) => oc.column('cell_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  const outcome = inserted ? 'created' : 'reused';
  const company = await lockCompany(db, request.cellId);
  const before = await findProvisioning(db, company.id);
  const { cellId, ...settings } = request;
  const changes = before ? parameterChanges(settingsOf(before), settings) : [];
  let move = before?.pending_move ?? null;
  if (changes.length) {
    const running = await activeRun(db, company.id, deps.liveRuns);
    if (running) {
      throw new DomainError(
        'conflict',
        `A provisioning run of ${cellId} is in progress (${running.workflowId}${running.runId ? `, run ${running.runId}` : ', waiting to start'}); it is never re-parameterised: call again with other parameters once it has ended. Nothing was changed.`,
        { details: { changes, running } },
      );
    }
    const structural = changes.filter(isStructural);
    if (structural.length && !apply) {
      throw new DomainError(
        'conflict',
        `${structural.map((c) => c.field).join(', ')} differ from the stored initialization of ${cellId}; nothing was changed. ` +
          'Send "apply": "move" to move the company tree and rename its agent profiles (companyKey and rootPath), or call again with the stored values.',
        { details: { changes } },
      );
    }
    const unsupported = structural.filter((c) => !MOVABLE_FIELDS.includes(c.field));
    if (unsupported.length) {
      throw new DomainError(
        'conflict',
        `"apply": "move" changes companyKey and rootPath only; ${unsupported.map((c) => c.field).join(', ')} would need a new server instance, which this call does not make. Nothing was changed.`,
        { details: { changes, unsupported: unsupported.map((c) => c.field) } },
      );
    }
    if (before && structural.length) move = await plannedMove(deps.companyRoot, before, settings, move);
  }
  const same = before && !changes.length;
  if (!same) await saveProvisioning(db, company.id, settings);
  if (before && move !== before.pending_move) await setPendingMove(db, company.id, move);
  if (company.name !== settings.nameEn && (!before || changes.some((c) => c.field === 'nameEn'))) {
    await db.updateTable('companies').set({ name: settings.nameEn }).where('id', '=', company.id).execute();
  }
  const queued = await requestProvisioning(db, { cellId, part: 'all', accountId });
  const plan = await planSteps(deps.companyRoot, { ...settings, cellId }, before?.instance ?? null, move, before?.replaced_instances);
  return { ...queued, company: { cellId, outcome }, record: !before ? 'created' : same ? 'unchanged' : 'updated', changes, plan };
}

/** The move to record: from where the tree is (an earlier move not yet done still counts from its start) to the new place. */
async function plannedMove(
  policy: CompanyRootPolicy,
  before: { root_path: string; company_key: string },
  settings: { rootPath: string; companyKey: string },
  pending: PendingMove | null,
): Promise<PendingMove | null> {
  const fromRoot = pending?.fromRoot ?? before.root_path;
  const fromKey = pending?.fromKey ?? before.company_key;
  if (fromRoot !== settings.rootPath) {
    const [from, to] = await Promise.all([
      resolveCompanyRoot(policy, fromRoot).catch(() => undefined),
      resolveCompanyRoot(policy, settings.rootPath),
    ]);
    const real = (r: { existing: string; missing: string[] }) => path.join(r.existing, ...r.missing);
    if (from && (isInside(real(to), real(from)) || isInside(real(from), real(to)))) {
      throw new DomainError(
        'conflict',
        `${settings.rootPath} and ${fromRoot} lie inside one another; a tree cannot move into itself. Nothing was changed.`,
        {
          details: { changes: [{ field: 'rootPath', stored: before.root_path, requested: settings.rootPath }] },
        },
      );
    }
  }
  return fromRoot === settings.rootPath && fromKey === settings.companyKey
    ? null
    : { fromRoot, toRoot: settings.rootPath, fromKey, toKey: settings.companyKey };
}
