import type { ImprovementView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { improvementView, type Ref, selectImprovements } from './repository.ts';

/** Removes an improvement: the next open no longer shows it (its proposal stays applied, as history). */
export async function deleteImprovement(db: DbOrTrx, principal: Principal, ref: Ref): Promise<ImprovementView> {
  const { namespace, id } = ref;
  authorize(principal, 'company.manage', { namespace });
  let select = selectImprovements(db).where('x.id', '=', id).where('a.namespace', '=', namespace);
  if (ref.slug !== undefined) select = select.where('a.slug', '=', ref.slug);
  const row = await select.executeTakeFirst();
  if (!row) throw new DomainError('improvement_not_found', `No improvement ${id} in ${namespace}.`);
  await db.deleteFrom('evolve_improvements').where('id', '=', id).execute();
  return improvementView(row);
}
