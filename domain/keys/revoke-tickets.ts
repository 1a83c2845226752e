import type { DbOrTrx } from '../db/index.ts';

/**
 * Revokes an account's live tickets and app tokens, for the apps of one company when given (called with the
 * revocation of its keys: domain/keys/repository.ts).
 */
export async function revokeTicketsOf(db: DbOrTrx, accountId: string, companyId?: string): Promise<void> {
  let query = db
    .updateTable('app_tickets')
    .set({ revoked_at: new Date() })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (companyId !== undefined) query = query.where('app_id', 'in', db.selectFrom('apps').select('id').where('company_id', '=', companyId));
  await query.execute();
  // App tokens (MCP hosts) are the same person's credentials for apps: they end together.
  let tokens = db
    .updateTable('oauth_tokens')
    .set({ revoked_at: new Date() })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (companyId !== undefined)
    tokens = tokens.where('app_id', 'in', db.selectFrom('apps').select('id').where('company_id', '=', companyId));
  await tokens.execute();
}

/**
 * Revokes the live tickets opened through resource grants of one resource (its rid and these
 * principals): called in the transaction that removes or lowers them (domain/resources/repository.ts).
 * App tokens need nothing: they judge the person's access again at each request.
 */
export async function revokeTicketsOfGrants(db: DbOrTrx, rid: string, principals: readonly string[]): Promise<void> {
  await db
    .updateTable('app_tickets')
    .set({ revoked_at: new Date() })
    .where('grant_rid', '=', rid)
    .where('grant_principal', 'in', principals)
    .where('revoked_at', 'is', null)
    .execute();
}
