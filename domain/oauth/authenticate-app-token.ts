import { accessToApp, currentVersionId } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { TicketPrincipal } from '../hosting/index.ts';
import { equalHashes, sha256 } from '../security/index.ts';
import { mcpPath } from './mcp-resource.ts';
import { oauthError } from './repository.ts';
import { ACCESS_PREFIX, isSecret } from './token-format.ts';

/** RFC 6750 3.1: every refusal of an app token is `invalid_token` (the 401's WWW-Authenticate says so too). */
const invalidToken = (message: string) => oauthError('unauthorized', 'invalid_token', message);

/**
 * The person behind an app token: it acts like an app ticket for the production channel of its
 * one app, with the role the person has in the app today (the app-open rule, judged at each
 * request) and at member level at most (`appToken`), until it expires or is revoked, and only while
 * the share the person was admitted through is live. Its audience is the app's MCP address
 * (RFC 8707): `path`, the request's path, must be that endpoint, so the token opens none of the
 * app's other routes (ontology, SQL, workflows, log, usage).
 */
export async function authenticateAppToken(db: DbOrTrx, clock: Clock, plaintext: string, path: string): Promise<TicketPrincipal> {
  if (!isSecret(plaintext, ACCESS_PREFIX)) throw invalidToken('The app token is malformed.');
  const hash = sha256(plaintext);
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .innerJoin('apps as p', 'p.id', 't.app_id')
    .leftJoin('app_shares as s', 's.id', 't.share_id')
    .select([
      't.id',
      't.access_hash',
      't.client_id',
      't.access_expires_at',
      't.revoked_at',
      't.share_id',
      's.revoked_at as share_revoked_at',
      's.expires_at as share_expires_at',
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
  if (!row || !equalHashes(row.access_hash, hash)) throw invalidToken('The app token is unknown.');
  if (row.revoked_at) throw invalidToken('The app token was revoked; authorize the host again.');
  if (row.status !== 'active') throw invalidToken('The account of this app token is not active.');
  const now = clock.now().getTime();
  if (row.share_id && (row.share_revoked_at || (row.share_expires_at && row.share_expires_at.getTime() <= now))) {
    throw invalidToken('The share this app token was authorized through has ended; authorize the host again.');
  }
  if (row.access_expires_at.getTime() <= now) throw invalidToken('The app token has expired; refresh it.');
  const audience = mcpPath(row);
  if (path !== audience) throw invalidToken(`This app token is for the MCP endpoint ${audience} only.`);
  const versionId = await currentVersionId(db, row.app_id, 'production');
  if (!versionId) throw invalidToken('The app has no production version.');
  const principal = appTokenPrincipal({ ...row, platformStaff: row.platform_staff }, versionId);
  const { access } = await accessToApp({ db, clock }, principal, { namespace: row.namespace, slug: row.slug, channel: 'production' });
  if (!access.allowed) throw invalidToken('You can no longer open this app; authorize the host again.');
  principal.ticket.role = access.role;
  return principal;
}

/**
 * An app token's grant as the ticket principal it acts as: production channel, role capped at
 * member (accessToApp lowers a ticket's role to its own, so the person's live role is held to it).
 */
export function appTokenPrincipal(
  grant: {
    id: string;
    client_id: string;
    access_expires_at: Date;
    share_id: string | null;
    app_id: string;
    namespace: string;
    slug: string;
    company_id: string | null;
    account_id: string;
    username: string;
    email: string;
    platformStaff: boolean;
  },
  versionId: string,
): TicketPrincipal {
  return {
    kind: 'ticket',
    account: { id: grant.account_id, username: grant.username, email: grant.email, platformStaff: grant.platformStaff },
    ticket: {
      id: grant.id,
      appId: grant.app_id,
      namespace: grant.namespace,
      slug: grant.slug,
      channel: 'production',
      versionId,
      expiresAt: grant.access_expires_at,
      companyId: grant.company_id,
      shareId: grant.share_id,
      role: 'member',
      appToken: { clientId: grant.client_id },
    },
  };
}
