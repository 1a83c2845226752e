import { sql } from 'kysely';
import { OBJECT_SET_RID_PREFIX, type ObjectSet } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { openOntology } from './data-access.ts';
import { compileObjectSet, inlineReferences, TEMPORARY_SET_HOURS } from './object-sets.ts';

/**
 * `POST .../objectSets/createTemporary`: stores the set (references to other temporary sets
 * replaced by what they name, so it outlives them) for 24 hours and answers its RID. Expired sets
 * are deleted here, a few at a time.
 */
export async function createTemporaryObjectSet(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  objectSet: ObjectSet,
): Promise<{ objectSetRid: string }> {
  const open = await openOntology(deps, principal, ontology);
  const inlined = await inlineReferences(deps.db, open, objectSet);
  await compileObjectSet(deps.db, open, inlined);
  const id = newId('ost');
  await deps.db
    .insertInto('temporary_object_sets')
    .values({
      id,
      ontology_id: open.ontology.id,
      object_set: JSON.stringify(inlined),
      account_id: principal.account.id,
      // The database's clock, as findTemporarySet reads it.
      expires_at: sql<Date>`now() + make_interval(hours => ${TEMPORARY_SET_HOURS})` as unknown as Date,
    })
    .execute();
  await deps.db
    .deleteFrom('temporary_object_sets')
    .where('id', 'in', (eb) => eb.selectFrom('temporary_object_sets').select('id').where('expires_at', '<=', sql<Date>`now()`).limit(100))
    .execute();
  return { objectSetRid: `${OBJECT_SET_RID_PREFIX}${id}` };
}
