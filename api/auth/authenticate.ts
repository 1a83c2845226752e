import type { Context } from 'koa';
import { DomainError } from '../../domain/errors.ts';
import { authenticateTicket } from '../../domain/hosting/authenticate-ticket.ts';
import { TICKET_PREFIX } from '../../domain/hosting/ticket-format.ts';
import { authenticateKey } from '../../domain/keys/authenticate-key.ts';
import { authenticateAppToken } from '../../domain/oauth/authenticate-app-token.ts';
import { ACCESS_PREFIX } from '../../domain/oauth/token-format.ts';
import type { Principal } from '../../domain/principal.ts';
import { findSession } from '../../domain/sessions/find-session.ts';
import type { ApiDeps } from '../deps.ts';
import type { AuthRequirement } from '../http/route.ts';
import { readSessionCookie } from './session-cookie.ts';

/**
 * Sessions may write only from our own pages: Sec-Fetch-Site when the browser
 * sends it, else an Origin equal to ours. `Origin: null` is never trusted.
 */
export function assertSameOrigin(ctx: Context, baseUrl: string): void {
  const site = ctx.get('sec-fetch-site');
  const origin = ctx.get('origin');
  const ok = site ? site === 'same-origin' : origin !== '' && origin !== 'null' && origin === new URL(baseUrl).origin;
  if (!ok) throw new DomainError('forbidden', 'Cross-site request refused: session writes must come from this site.');
}

const AGENT_AUTHOR = /^agent:([A-Za-z0-9][A-Za-z0-9._-]{0,62})$/;

/**
 * A key sent with `x-author: agent:<id>` acts for that agent (spec Authentication 7): an agent
 * author, who cannot write the main definition. An agent key is its own agent whatever it sends.
 */
function withAuthor(principal: Extract<Principal, { kind: 'key' }>, author: string): Principal {
  if (author === '' || principal.agent) return principal;
  const id = AGENT_AUTHOR.exec(author)?.[1];
  if (!id) {
    throw new DomainError('invalid_payload', 'x-author must be agent:<id>.', {
      details: { problems: [{ path: 'headers.x-author', code: 'invalid_string', message: 'must be agent:<id>' }] },
    });
  }
  return { ...principal, agent: { id, restrictions: null } };
}

/** The caller of a route, from a Bearer key or the session cookie, checked against the route's requirement. */
export async function authenticate(ctx: Context, deps: ApiDeps, req: Exclude<AuthRequirement, 'none'>, write: boolean): Promise<Principal> {
  const header = ctx.get('authorization');
  const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  let principal: Principal | undefined;
  if (bearer?.startsWith(TICKET_PREFIX) || bearer?.startsWith(ACCESS_PREFIX)) {
    if (!req.accepts.includes('ticket')) throw new DomainError('unauthorized', 'App tickets are not accepted here; use a developer key.');
    if (bearer.startsWith(ACCESS_PREFIX) && req.renewal) {
      throw new DomainError('unauthorized', 'App tokens are renewed at the token endpoint (grant_type=refresh_token).');
    }
    principal = bearer.startsWith(ACCESS_PREFIX)
      ? await authenticateAppToken(deps.db, deps.clock, bearer, ctx.path)
      : await authenticateTicket(deps.db, deps.clock, bearer, { forRenewal: req.renewal === true });
    // A ticket admits only the app it was issued for; ticket routes name the app in their path,
    // or act on the ticket's own app (`currentApp`).
    const { namespace, slug } = principal.ticket;
    if (!req.currentApp && (ctx.params.namespace !== namespace || ctx.params.slug !== slug)) {
      throw new DomainError('forbidden', `This app ticket admits only ${namespace}/${slug}.`, { details: { namespace, slug } });
    }
  } else if (header && req.accepts.includes('key')) {
    if (!bearer) throw new DomainError('unauthorized', 'Use Authorization: Bearer svc-dk-<key>.');
    principal = withAuthor(await authenticateKey(deps, bearer), ctx.get('x-author'));
  } else if (req.accepts.includes('session')) {
    const baseUrl = deps.addresses().baseUrl;
    const token = readSessionCookie(ctx, baseUrl);
    principal = token ? await findSession(deps.db, token) : undefined;
    if (!principal) {
      if (!req.accepts.includes('key')) throw new DomainError('invalid_session', 'Sign in on the web first.');
      throw new DomainError('unauthorized', 'A developer key (Authorization: Bearer svc-dk-...) or a web session is required.');
    }
    if (write) assertSameOrigin(ctx, baseUrl);
  } else if (req.accepts.includes('ticket') && !req.accepts.includes('key')) {
    throw new DomainError('unauthorized', 'The app ticket is required: Authorization: Bearer svc-at-<ticket>.');
  } else {
    throw new DomainError('unauthorized', 'A developer key is required: Authorization: Bearer svc-dk-<key>.');
  }

  if (req.operator && !principal.account.platformStaff) {
    throw new DomainError('forbidden', 'Only platform staff may use this interface.');
  }
  if (req.role === 'developer' && principal.kind === 'key' && principal.role !== 'developer') {
    throw new DomainError(
      'forbidden',
      `This is a developer-only interface and this key acts as a member of ${principal.company.cellId}. ` +
        'Members may call published apps and see themselves; ask a company admin for a developer license, then log in again.',
      { details: { role: principal.role, required: 'developer' } },
    );
  }
  return principal;
}
