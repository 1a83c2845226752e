import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { getAccount } from './get-account.ts';

export interface ListAccountsInput {
  /** Part of a username or email. */
  q?: string | undefined;
  limit: number;
  /** Continue after this username (the previous page's `next`). */
  after?: string | undefined;
  /** Only accounts licensed in these companies, showing only those licenses (null: every account, as operators see them). */
  companyIds?: readonly string[] | null;
}

/** Accounts by username, one page at a time. */
export async function listAccounts(db: DbOrTrx, input: ListAccountsInput) {
  const companyIds = input.companyIds ?? null;
  let q = db
    .selectFrom('accounts')
    .select(['id', 'username'])
    .orderBy(sql`lower(username)`)
    .limit(input.limit + 1);
  if (input.q) {
    const pattern = `%${input.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(username)`, 'like', pattern), eb(sql`lower(email)`, 'like', pattern)]));
  }
  if (companyIds) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('licenses as l')
          .whereRef('l.account_id', '=', 'accounts.id')
          .where('l.company_id', 'in', companyIds.length > 0 ? companyIds : ['']),
      ),
    );
  }
  if (input.after) q = q.where(sql`lower(username)`, '>', input.after.toLowerCase());
  const rows = await q.execute();
  const page = rows.slice(0, input.limit);
  return {
    accounts: await Promise.all(page.map((r) => getAccount(db, r.id, companyIds))),
    next: rows.length > input.limit ? page.at(-1)!.username : null,
  };
}
