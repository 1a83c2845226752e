import type { Context } from 'koa';
import { DomainError } from '../../domain/errors.ts';
import { authenticateTicket, TICKET_PREFIX } from '../../domain/hosting/index.ts';
import { authenticateKey } from '../../domain/keys/index.ts';
import { ACCESS_PREFIX, authenticateAppToken } from '../../domain/oauth/index.ts';
import { type CallerKind, callerKindOf, credentialTypesOf, type RouteAccess, ticketAdmits } from '../../domain/policy/index.ts';
import type { Principal } from '../../domain/principal.ts';
import { findSession } from '../../domain/sessions/index.ts';
import type { ApiDeps } from '../deps.ts';
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

/** How a route reads its credential: besides the table's decision, an expired ticket is taken for renewal. */
export interface AuthMechanics {
  /** Ticket renewal: an expired ticket is still accepted, up to 24 hours after its expiry. */
  renewal: boolean;
  write: boolean;
}

/**
 * The caller of a route, from a Bearer key, ticket or app token or the session cookie, admitted by
 * the route table (domain/policy/route-access.ts): only the credential types the route admits are
 * read, and the caller's kind must be one it admits; on app-scoped routes a ticket only for the
 * path's app.
 */
export async function authenticate(ctx: Context, deps: ApiDeps, access: RouteAccess, how: AuthMechanics): Promise<Principal> {
  const reads = credentialTypesOf(access);
  const header = ctx.get('authorization');
  const bearer = bearerOf(header);
  let principal: Principal | undefined;
  if (bearer?.startsWith(ACCESS_PREFIX)) {
    if (how.renewal) throw new DomainError('unauthorized', 'App tokens are renewed at the token endpoint (grant_type=refresh_token).');
    // The audience first (RFC 6750/8707): anywhere but its own app's MCP endpoint an app token is
    // invalid_token (401), whatever the route admits; the table then decides as for any caller.
    principal = await authenticateAppToken(deps.db, deps.clock, bearer, ctx.path);
  } else if (bearer?.startsWith(TICKET_PREFIX)) {
    if (!reads.ticket) throw new DomainError('forbidden', 'App tickets are not accepted here; use a developer key.');
    principal = await authenticateTicket(deps, bearer, { forRenewal: how.renewal });
  } else if (header && reads.key) {
    if (!bearer) throw new DomainError('unauthorized', 'Use Authorization: Bearer svc-dk-<key>.');
    principal = withAuthor(await authenticateKey(deps, bearer), ctx.get('x-author'));
  } else if (reads.session) {
    const baseUrl = deps.addresses().baseUrl;
    const token = readSessionCookie(ctx, baseUrl);
    principal = token ? await findSession(deps, token) : undefined;
    if (!principal) {
      if (!reads.key) throw new DomainError('invalid_session', 'Sign in on the web first.');
      throw new DomainError('unauthorized', 'A developer key (Authorization: Bearer svc-dk-...) or a web session is required.');
    }
    if (how.write) assertSameOrigin(ctx, baseUrl);
  } else if (reads.ticket && !reads.key) {
    throw new DomainError('unauthorized', 'The app ticket is required: Authorization: Bearer svc-at-<ticket>.');
  } else {
    throw new DomainError('unauthorized', 'A developer key is required: Authorization: Bearer svc-dk-<key>.');
  }
  admit(ctx, principal, access);
  return principal;
}

const bearerOf = (header: string) => /^Bearer\s+(\S+)$/i.exec(header)?.[1];

/** The table's decision for an authenticated caller: its kind admitted, and a ticket only for the path's app on app routes. */
function admit(ctx: Context, principal: Principal, access: RouteAccess): void {
  const kind = callerKindOf(principal);
  const { namespace, slug } = ctx.params as { namespace?: string; slug?: string };
  if (!access.admits.includes(kind)) throw refusal(principal, kind, access, namespace);
  if (access.scope === 'app' && namespace !== undefined && !ticketAdmits(principal, { namespace, slug })) {
    const t = (principal as Extract<Principal, { kind: 'ticket' }>).ticket;
    throw new DomainError('forbidden', `This app ticket admits only ${t.namespace}/${t.slug}.`, {
      details: { namespace: t.namespace, slug: t.slug },
    });
  }
}

function refusal(principal: Principal, kind: CallerKind, access: RouteAccess, namespace: string | undefined): DomainError {
  if (access.admits.every((k) => k === 'operator-key')) return new DomainError('forbidden', 'Only platform staff may use this interface.');
  switch (principal.kind) {
    case 'key':
      if (kind === 'agent-key' && access.admits.includes('agent-key-restricted')) {
        return new DomainError('forbidden', 'This agent key is read-only: it was issued without api:use-ontologies-write.', {
          details: { required: 'api:use-ontologies-write' },
        });
      }
      if (kind === 'agent-key' || kind === 'agent-key-restricted') {
        return new DomainError('forbidden', 'Agent keys reach only the ontology’s data they were issued for (spec Authentication 7).', {
          details: { caller: kind },
        });
      }
      return new DomainError(
        'forbidden',
        `This is a developer-only interface and this key acts as a member of ${principal.company.cellId}. ` +
          'Members may call published apps and see themselves; ask a company admin for a developer license, then log in again.',
        { details: { role: principal.role, required: 'developer' } },
      );
    case 'session': {
      const where = namespace === undefined ? '' : ` of ${namespace}`;
      return new DomainError(
        'forbidden',
        `Only developers${where} may use this developer-only interface; this account holds no developer license.`,
        {
          details: { required: 'developer' },
        },
      );
    }
    case 'ticket':
      return new DomainError(
        'forbidden',
        `This interface does not admit ${kind === 'viewer-ticket' || kind === 'viewer-app-token' ? 'read-only (viewer)' : `${principal.ticket.role}`} app credentials.`,
        {
          details: { caller: kind, role: principal.ticket.role },
        },
      );
  }
}
