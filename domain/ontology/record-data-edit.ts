import { writeLogRecords } from '../app-log/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { findActingApp } from './acting-app.ts';
import type { OpenOntology } from './data-access.ts';
import { changeVerb, linkEditsPart, summaryLine } from './log-summary.ts';
import type { ObjectChange } from './write-edits.ts';

/** Objects listed with their before and after in one record; a larger edit or import is counted only. */
const LISTED_OBJECTS = 20;

/**
 * The action/data.* record of a developer's direct edit (`data.edit`) or import (`data.import`)
 * in the log of the app the request acts through (`x-svc-app`; a ticket never reaches these
 * developer routes), in the edit's own transaction. Without a named app there is no app log.
 */
export async function recordDataEdit(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  named: { namespace: string; slug: string } | null,
  open: OpenOntology,
  edit: { name: 'data.edit' | 'data.import'; operationId: string; objects: readonly ObjectChange[]; linkEdits: number },
): Promise<void> {
  const app = await findActingApp(deps.db, principal, named, open.ontology.cellId, open.access);
  if (!app) return;
  const count = { created: 0, modified: 0, deleted: 0 };
  for (const o of edit.objects) count[changeVerb(o)] += 1;
  const types = [...new Set(edit.objects.map((o) => o.objectType))];
  const parts = [
    ...Object.entries(count)
      .filter(([, n]) => n > 0)
      .map(([verb, n]) => `${verb} ${n}`),
    ...linkEditsPart(edit.linkEdits),
  ];
  const summary = `${edit.name === 'data.import' ? 'Import' : 'Direct edit'} of ${types.join(', ') || 'links'}: ${parts.join(', ') || 'no change'}`;
  await writeLogRecords(deps.db, [
    {
      appId: app.appId,
      at: deps.clock.now(),
      kind: 'action',
      source: 'service',
      name: edit.name,
      accountId: principal.account.id,
      versionId: app.versionId,
      channel: app.channel,
      data: {
        operationId: edit.operationId,
        ...count,
        linkEdits: edit.linkEdits,
        ...(edit.objects.length <= LISTED_OBJECTS
          ? { objects: edit.objects.map((o) => ({ objectType: o.objectType, primaryKey: o.primaryKey, before: o.before, after: o.after })) }
          : {}),
        summary: summaryLine(summary),
      },
    },
  ]);
}
