import type { GenerationView } from '../../schemas/modeling.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { authorizeAssetRead } from './access.ts';
import { companyOf, generationView } from './repository.ts';

/** A generation and its state: for the company's people, and for the app that asked for it (another app's is hidden). */
export async function getGeneration(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<GenerationView> {
  await authorizeAssetRead(db, principal, namespace);
  const company = await companyOf(db, namespace);
  let query = db.selectFrom('world_generations').selectAll().where('company_id', '=', company.id).where('id', '=', id);
  if (principal.kind === 'ticket') query = query.where('app_id', '=', principal.ticket.appId);
  const row = await query.executeTakeFirst();
  if (!row)
    throw new DomainError('world_generation_not_found', `No world generation ${id} in ${namespace}.`, { details: { namespace, id } });
  return generationView(row);
}
