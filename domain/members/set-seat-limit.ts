import { findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { seatsUsed } from './repository.ts';

/** Operators set how many licenses a company may hold (null: no limit). Existing licenses stay. */
export async function setSeatLimit(db: DbOrTrx, ref: string, limit: number | null) {
  const company = await findCompany(db, ref);
  await db.updateTable('companies').set({ seat_limit: limit }).where('id', '=', company.id).execute();
  return { cellId: company.cell_id, seats: { limit, used: await seatsUsed(db, company.id) } };
}
