import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';

/**
 * Who a notify step may email: an active account holding a license in the app's company. Checked
 * at upload (check-workflow.ts) and again at send time (notify.ts), since a license can be removed
 * or an account disabled between the two. Answers the lowercased emails among `emails` that pass.
 */
export async function companyRecipients(db: DbOrTrx, companyId: string | null, emails: readonly string[]): Promise<Set<string>> {
  if (companyId === null || emails.length === 0) return new Set();
  const rows = await db
    .selectFrom('accounts as a')
    .innerJoin('licenses as l', 'l.account_id', 'a.id')
    .select(sql<string>`lower(a.email)`.as('email'))
    .where('l.company_id', '=', companyId)
    .where('a.status', '=', 'active')
    .where(sql`lower(a.email)`, 'in', [...new Set(emails.map((e) => e.toLowerCase()))])
    .execute();
  return new Set(rows.map((r) => r.email));
}
