import type { DbOrTrx } from '../db/database.ts';
import type { ShareGrants, Visitor } from '../policy/index.ts';
import { appGrantOf } from '../resources/app-grant.ts';
import { findShareGrants } from './repository.ts';

/** Everything beyond licenses that may admit a visitor to an app: its live shares and the resource grants on it. */
export async function findAppGrants(
  db: DbOrTrx,
  input: {
    app: { id: string; namespace: string; slug: string; companyId: string | null };
    visitor: Visitor;
    linkShareId: string | null;
    now: Date;
  },
): Promise<ShareGrants> {
  const shares = await findShareGrants(db, {
    appId: input.app.id,
    accountId: input.visitor.accountId,
    linkShareId: input.linkShareId,
    now: input.now,
  });
  return { ...shares, resource: await appGrantOf(db, input.visitor, input.app) };
}
