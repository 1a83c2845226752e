import type { z } from 'zod';
import type { EditObjectsRequest, EditObjectsResponse } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertNotMarkedOut, type OpenOntology, openOntology } from './data-access.ts';
import { countLinkEdits } from './log-summary.ts';
import { recordDataEdit } from './record-data-edit.ts';
import { writeEdits } from './write-edits.ts';

/** The ontology a developer edits directly: others who can read it get 403 (a developer-only interface), the rest 404. */
export async function openForDirectEdits(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
): Promise<OpenOntology> {
  const open = await openOntology(deps, principal, ontology);
  authorize(principal, 'ontology.edit', { namespace: open.ontology.cellId });
  return open;
}

/**
 * `POST /api/v1/ontologies/{ontology}/edits`: a developer's direct edits (create, modify, delete,
 * addLink, removeLink), applied in order by the one writer, all or none; recorded as action/data.edit
 * in the log of the app the request names.
 */
export async function editObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  request: z.output<typeof EditObjectsRequest>,
  /** The app whose log gets the action/data.edit record (`x-svc-app`), if any. */
  app: { namespace: string; slug: string } | null = null,
): Promise<z.input<typeof EditObjectsResponse>> {
  const open = await openForDirectEdits(deps, principal, ontology);
  assertNotMarkedOut(open, request.edits);
  const operationId = newId('ope');
  const result = await writeEdits(deps.db, {
    companyId: open.ontology.companyId,
    accountId: principal.account.id,
    operationId,
    actionTypeRid: null,
    edits: request.edits,
    at: deps.clock.now(),
  });
  await recordDataEdit(deps, principal, app, open, {
    name: 'data.edit',
    operationId,
    objects: result.objects,
    linkEdits: countLinkEdits(request.edits),
  });
  return { operationId, objects: result.objects };
}
