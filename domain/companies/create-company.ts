import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { getCompany } from './get-company.ts';

export async function createCompany(db: DbOrTrx, input: { cellId: string; name: string }) {
  const existing = await db.selectFrom('companies').select('id').where('cell_id', '=', input.cellId).executeTakeFirst();
  if (existing) throw new DomainError('conflict', `Company ${input.cellId} already exists.`, { details: { cellId: input.cellId } });
  await db
    .insertInto('companies')
    .values({ id: newId('org'), cell_id: input.cellId, name: input.name })
    .execute();
  return getCompany(db, input.cellId);
}
