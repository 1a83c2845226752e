import type { DbOrTrx } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';

/** By cell id (`cell-…`) or by id (`org_…`). */
export async function findCompany(db: DbOrTrx, ref: string) {
  const company = await db
    .selectFrom('companies')
    .selectAll()
    .where(ref.startsWith('cell-') ? 'cell_id' : 'id', '=', ref)
    .executeTakeFirst();
  if (!company) throw new ApiError('organization_not_found', 404, { organization: ref });
  return company;
}
