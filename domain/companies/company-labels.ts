import type { DbOrTrx } from '../db/index.ts';

/**
 * What Temporal shows of a company's runs (their memo and search attributes): its cell id and name.
 * `ref` is the cell id or the id; a company not (or no longer) there has only the cell id it was named by.
 */
export async function companyLabels(db: DbOrTrx, ref: string): Promise<{ cellId: string | undefined; companyName: string | undefined }> {
  const byCell = ref.startsWith('cell-');
  const row = await db
    .selectFrom('companies')
    .select(['cell_id', 'name'])
    .where(byCell ? 'cell_id' : 'id', '=', ref)
    .executeTakeFirst();
  return { cellId: row?.cell_id ?? (byCell ? ref : undefined), companyName: row?.name };
}
