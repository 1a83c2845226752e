import type { DbOrTrx } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { newId } from '../security/random.ts';

export async function createCompany(db: DbOrTrx, input: { cellId: string; name: string }) {
  const existing = await db.selectFrom('companies').select('id').where('cell_id', '=', input.cellId).executeTakeFirst();
  if (existing) throw new ApiError('conflict', 409, { cellId: input.cellId }, `Organization ${input.cellId} already exists.`);
  const company = { id: newId('org'), cell_id: input.cellId, name: input.name };
  await db.insertInto('companies').values(company).execute();
  return company;
}
