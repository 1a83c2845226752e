import { ACTION_TYPE_RID_PREFIX, type ActionType, type ActionTypeDefinition } from '../../schemas/ontology-actions.ts';
import type { DbOrTrx } from '../db/index.ts';

// Action types as stored: the definition as the developer wrote it (validated against the object
// and link types when defined), versioned like object types.

export interface ActionTypeRecord {
  id: string;
  rid: string;
  ontologyId: string;
  apiName: string;
  definition: ActionTypeDefinition;
  version: number;
}

export const actionTypeRid = (id: string) => `${ACTION_TYPE_RID_PREFIX}${id}`;

const COLUMNS = ['id', 'ontology_id', 'api_name', 'definition', 'version'] as const;
const toRecord = (r: { id: string; ontology_id: string; api_name: string; definition: Record<string, unknown>; version: number }) => ({
  id: r.id,
  rid: actionTypeRid(r.id),
  ontologyId: r.ontology_id,
  apiName: r.api_name,
  definition: r.definition as ActionTypeDefinition,
  version: r.version,
});

export async function listActionTypeRecords(db: DbOrTrx, ontologyId: string): Promise<ActionTypeRecord[]> {
  const rows = await db.selectFrom('action_types').select(COLUMNS).where('ontology_id', '=', ontologyId).orderBy('api_name').execute();
  return rows.map(toRecord);
}

/** `lock`: FOR UPDATE, so two definitions of one action type run one after the other. */
export async function findActionTypeRecord(
  db: DbOrTrx,
  ontologyId: string,
  apiName: string,
  opts: { lock?: boolean } = {},
): Promise<ActionTypeRecord | undefined> {
  let q = db.selectFrom('action_types').select(COLUMNS).where('ontology_id', '=', ontologyId).where('api_name', '=', apiName);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row && toRecord(row);
}

/** Writes the current definition and appends it as a version. */
export async function saveActionType(db: DbOrTrx, a: ActionTypeRecord, accountId: string | null, created: boolean): Promise<void> {
  const definition = JSON.stringify(a.definition);
  if (created) {
    await db
      .insertInto('action_types')
      .values({ id: a.id, ontology_id: a.ontologyId, api_name: a.apiName, definition, version: a.version })
      .execute();
  } else {
    await db.updateTable('action_types').set({ definition, version: a.version, updated_at: new Date() }).where('id', '=', a.id).execute();
  }
  await db
    .insertInto('action_type_versions')
    .values({ action_type_id: a.id, version: a.version, definition, account_id: accountId })
    .execute();
}

/** Foundry ActionTypeV2, plus our criteria, edit templates and version. */
export function actionTypeWire(a: ActionTypeRecord): ActionType {
  const d = a.definition;
  return {
    rid: a.rid,
    apiName: a.apiName,
    displayName: d.displayName ?? a.apiName,
    ...(d.description === undefined ? {} : { description: d.description }),
    status: 'ACTIVE',
    parameters: Object.fromEntries(Object.entries(d.parameters).map(([name, p]) => [name, { ...p, required: p.required ?? true }])),
    submissionCriteria: d.submissionCriteria,
    edits: d.edits,
    ...(d.writebackWebhook ? { writebackWebhook: d.writebackWebhook } : {}),
    version: a.version,
  };
}
