import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { TicketPrincipal } from '../hosting/authenticate-ticket.ts';
import { accessToApp } from '../hosting/open-app.ts';
import { currentVersionId } from '../hosting/repository.ts';
import { equalHashes, sha256 } from '../security/random.ts';
import { ACCESS_PREFIX, isSecret } from './token-format.ts';

const unauthorized = (message: string) => new DomainError('unauthorized', message);

/**
 * The person behind an app token: it acts like an app ticket for the production channel of its
 * one app, with the role the person has in the app today (the app-open rule, judged at each
 * request) and at member level at most (`appToken`), until it expires or is revoked.
 */
export async function authenticateAppToken(db: DbOrTrx, clock: Clock, plaintext: string): Promise<TicketPrincipal> {
  if (!isSecret(plaintext, ACCESS_PREFIX)) throw unauthorized('The app token is malformed.');
  const hash = sha256(plaintext);
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .innerJoin('apps as p', 'p.id', 't.app_id')
    .select([
      't.id',
      't.access_hash',
      't.client_id',
      't.access_expires_at',
      't.revoked_at',
      'p.id as app_id',
      'p.namespace',
      'p.slug',
      'p.company_id',
      'a.id as account_id',
      'a.username',
      'a.email',
      'a.status',
      'a.platform_staff',
    ])
    .where('t.access_hash', '=', hash)
    .executeTakeFirst();
  if (!row || !equalHashes(row.access_hash, hash)) throw unauthorized('The app token is unknown.');
  if (row.revoked_at) throw unauthorized('The app token was revoked; authorize the host again.');
  if (row.status !== 'active') throw unauthorized('The account of this app token is not active.');
  if (row.access_expires_at.getTime() <= clock.now().getTime()) throw unauthorized('The app token has expired; refresh it.');
  const versionId = await currentVersionId(db, row.app_id, 'production');
  if (!versionId) throw unauthorized('The app has no production version.');
  const principal: TicketPrincipal = {
    kind: 'ticket',
    account: { id: row.account_id, username: row.username, email: row.email, platformStaff: row.platform_staff },
    ticket: {
      id: row.id,
      appId: row.app_id,
      namespace: row.namespace,
      slug: row.slug,
      channel: 'production',
      versionId,
      expiresAt: row.access_expires_at,
      companyId: row.company_id,
      shareId: null,
      // The ceiling the person's role is held to (accessToApp lowers a ticket's role to its own).
      role: 'member',
      appToken: { clientId: row.client_id },
    },
  };
  const { access } = await accessToApp({ db, clock }, principal, { namespace: row.namespace, slug: row.slug, channel: 'production' });
  if (!access.allowed) throw unauthorized('You can no longer open this app; authorize the host again.');
  principal.ticket.role = access.role;
  return principal;
}
