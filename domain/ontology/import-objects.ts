import type { z } from 'zod';
import type { ImportMode, ImportObjectsResponse } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { readableType } from './data-access.ts';
import { openForDirectEdits } from './edit-objects.ts';
import { recordDataEdit } from './record-data-edit.ts';
import { upsertEdits } from './upsert-objects.ts';
import { type Edit, writeEdits } from './write-edits.ts';

/**
 * `POST /api/v1/ontologies/{ontology}/objects/{objectType}/import`: a JSON array of objects (each
 * with its primary key) loaded in one transaction through the one writer. `create` refuses an
 * object that exists; `upsert` modifies it with the properties given (others stay). Recorded as
 * action/data.import in the log of the app the request names.
 */
export async function importObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: {
    ontology: string;
    objectType: string;
    mode: z.infer<typeof ImportMode>;
    objects: Record<string, unknown>[];
    /** The app whose log gets the action/data.import record (`x-svc-app`), if any. */
    app?: { namespace: string; slug: string } | null;
  },
): Promise<z.input<typeof ImportObjectsResponse>> {
  const open = await openForDirectEdits(deps, principal, input.ontology);
  const type = readableType(open, input.objectType);
  const pk = type.primaryKey;
  const seen = new Map<string, number>();
  input.objects.forEach((o, i) => {
    const key = String(ownValue(o, pk));
    const first = seen.get(key);
    if (first !== undefined) {
      throw new DomainError('invalid_payload', `Objects ${first} and ${i} have the same ${pk} ${key}.`, {
        details: { problems: [{ path: `[${i}].${pk}`, code: 'duplicate', message: `duplicate primary key (also at [${first}])` }] },
      });
    }
    seen.set(key, i);
  });
  const edits =
    input.mode === 'upsert'
      ? await upsertEdits(deps.db, open.ontology, type, input.objects)
      : input.objects.map((o): Edit => ({ type: 'create', objectType: type.apiName, properties: o }));
  const operationId = newId('ope');
  const result = await writeEdits(deps.db, {
    companyId: open.ontology.companyId,
    accountId: principal.account.id,
    operationId,
    actionTypeRid: null,
    edits,
  });
  await recordDataEdit(deps, principal, input.app ?? null, open, {
    name: 'data.import',
    operationId,
    objects: result.objects,
    linkEdits: 0,
  });
  const created = result.objects.filter((c) => c.before === null).length;
  return { operationId, created, modified: result.objects.length - created };
}
