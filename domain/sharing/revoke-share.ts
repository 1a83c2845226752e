import type { ShareView } from '../../schemas/sharing.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { loadShare } from './create-share.ts';
import { type AppRef, currentApp } from './current-app.ts';
import { findAppOfShare, recordShare } from './repository.ts';

/**
 * Ends a share at once: the next open is refused and tickets opened through it stop working
 * (authenticateTicket checks the share). Idempotent; the first revoke writes the share/revoke record.
 * A share id is unique, so the app may go unnamed: it is then the share's own, and the policy
 * (app.share) decides on it as on a named one.
 */
export async function revokeShare(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  ref: AppRef,
  shareId: string,
): Promise<{ share: ShareView; alreadyRevoked: boolean }> {
  const named = ref.namespace !== undefined || ref.slug !== undefined;
  const app = await currentApp(db, principal, named ? ref : await appOfShare(db, shareId));
  const row = await db
    .selectFrom('app_shares')
    .selectAll()
    .where('id', '=', shareId)
    .where('app_id', '=', app.id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new DomainError('not_found', `No share ${shareId} of ${app.namespace}/${app.slug}.`, { details: { shareId } });
  if (row.revoked_at) return { share: await loadShare(db, shareId), alreadyRevoked: true };
  await db.updateTable('app_shares').set({ revoked_at: clock.now() }).where('id', '=', shareId).execute();
  const share = await loadShare(db, shareId);
  await recordShare(db, {
    appId: app.id,
    name: 'share/revoke',
    shareId,
    audience: row.audience,
    object: row.audience === 'users' ? row.account_id! : row.audience === 'public' ? row.token_prefix! : share.company!.cellId,
    role: row.role,
    expiresAt: row.expires_at,
    actorId: principal.account.id,
    at: clock.now(),
  });
  return { share, alreadyRevoked: false };
}

async function appOfShare(db: DbOrTrx, shareId: string): Promise<AppRef> {
  const app = await findAppOfShare(db, shareId);
  if (!app) throw new DomainError('not_found', `No share ${shareId}.`, { details: { shareId } });
  return app;
}
