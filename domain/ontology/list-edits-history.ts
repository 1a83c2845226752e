import type { z } from 'zod';
import type { EditsHistoryRequest, EditsHistoryResponse } from '../../schemas/ontology-actions.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { visibleState } from './object-security.ts';

/** A state as written (write-edits.ts): the object's properties by name, or null. */
type State = Record<string, unknown> | null;

const EDIT_NAMES = { create: 'createEdit', modify: 'modifyEdit', delete: 'deleteEdit' } as const;

/** An opaque token: the last sequence number sent. */
const tokenOf = (seq: number) => Buffer.from(`e${seq}`).toString('base64url');
function seqOf(token: string): number {
  const m = /^e(\d{1,18})$/.exec(Buffer.from(token, 'base64url').toString());
  if (!m)
    throw new DomainError('invalid_payload', 'pageToken is not one this service gave.', {
      details: { problems: [{ path: 'pageToken', code: 'invalid', message: 'unknown page token' }] },
    });
  return Number(m[1]);
}

/**
 * `POST .../objectTypes/{type}/editsHistory` (Foundry): the type's edits, newest first, optionally
 * of one object; for callers who may read the type. Security policies apply to each state as to
 * a read: a state of an object hidden from the caller is null, an edit with no visible state is left
 * out, nulled properties are left out of the states.
 */
export async function listEditsHistory(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  apiName: string,
  request: z.output<typeof EditsHistoryRequest>,
): Promise<z.input<typeof EditsHistoryResponse>> {
  const type = readableType(await openOntology(deps, principal, ontology), apiName);
  let q = deps.db
    .selectFrom('ontology_edits')
    .select(['seq', 'primary_key', 'operation_id', 'action_type_rid', 'account_id', 'at', 'edit'])
    .where('object_type_id', '=', type.id)
    .orderBy('seq', 'desc')
    .limit(request.pageSize + 1);
  if (request.filters?.primaryKey !== undefined) q = q.where('primary_key', '=', String(request.filters.primaryKey));
  if (request.pageToken !== undefined) q = q.where('seq', '<', seqOf(request.pageToken));
  const rows = await q.execute();
  const page = rows
    .slice(0, request.pageSize)
    .map((r) => ({ ...r, before: visibleState(type, r.edit.before as State), after: visibleState(type, r.edit.after as State) }))
    .filter((r) => r.before !== null || r.after !== null);
  const keyIsText = type.properties[type.primaryKey]!.dataType.type === 'string';
  return {
    data: page.map((r) => ({
      objectPrimaryKey: keyIsText ? r.primary_key : Number(r.primary_key),
      operationId: r.operation_id,
      actionTypeRid: r.action_type_rid,
      userId: r.account_id,
      timestamp: r.at.toISOString(),
      edit: { type: EDIT_NAMES[r.edit.type], before: r.before, after: r.after },
    })),
    ...(rows.length > request.pageSize ? { nextPageToken: tokenOf(Number(rows[request.pageSize - 1]!.seq)) } : {}),
  };
}
