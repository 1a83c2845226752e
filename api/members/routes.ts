import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import {
  activateAccount,
  consumeResendBudget,
  importMembers,
  listMembers,
  OUTCOMES,
  RESEND_LIMITS,
  readMemberList,
  resendInvitation,
  setSeatLimit,
} from '../../domain/members/index.ts';
import { hashPassword } from '../../domain/security/index.ts';
import { AccountId, CellId, NewPassword, Role } from '../../schemas/identity.ts';
import { assertSameOrigin } from '../auth/authenticate.ts';
import type { ApiDeps } from '../deps.ts';
import { defineRoute } from '../http/route.ts';

// Company members (spec C, Member import) and the invitation emails that activate imported
// accounts. An invitation's link reaches only the person, by email: no answer carries it.

const Source = z.string().trim().min(1).max(120);
const MemberList = z.union([z.array(z.unknown()), z.string().max(1024 * 1024)]);
const Invitation = z.object({
  email: z.string(),
  status: z.enum(['queued', 'recorded']).meta({
    description:
      'queued: sent after the commit by the worker, retried until the SMTP server takes it; recorded: no SMTP server is configured, nothing is sent.',
  }),
});
const Seats = z.object({ limit: z.number().int().nullable(), used: z.number().int() });

/** Where the link in an invitation points, and whether there is SMTP to send it (else `recorded`). */
const invitationContext = (deps: ApiDeps) => ({ baseUrl: deps.addresses().baseUrl, mailConfigured: deps.mailer.configured });

/** A key acts for its one company; only keys reach these routes. */
const companyOf = (principal: { kind: string; company?: { id: string } }) => {
  if (principal.kind !== 'key' || !principal.company) throw new DomainError('unauthorized');
  return principal.company.id;
};

export const listMembersRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/members',
  operationId: 'listMembers',
  summary: 'The company’s members and their activation state (developers)',
  tags: ['members'],
  auth: 'credential',
  response: {
    status: 200,
    description: 'Members by username, and the company’s seats.',
    schema: z.object({
      members: z.array(
        z.object({
          accountId: z.string(),
          username: z.string(),
          email: z.string(),
          name: z.string().nullable(),
          role: Role,
          admin: z.boolean(),
          status: z.enum(['active', 'pending', 'disabled']),
          activated: z.boolean().meta({ description: 'False for imported accounts that have not set a password yet.' }),
          externalId: z.string().nullable(),
        }),
      ),
      seats: Seats,
    }),
  },
  errors: ['unauthorized', 'forbidden'],
  handler: async ({ db, principal }) => ({ data: await listMembers(db, companyOf(principal)) }),
});

export const importMembersRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/members/import',
  operationId: 'importMembers',
  summary: 'Import a member list into the key’s company (developers; idempotent)',
  description:
    'The body is a JSON array of `{email, name?, externalId?}`, an object `{source?, members, dryRun?}` whose `members` is such an ' +
    'array or CSV text, or CSV itself (`Content-Type: text/csv`, header with email and optionally name and externalId; `source` ' +
    'and `dryRun` then in the query). At most 1000 people, one transaction: when the seats do not suffice nothing changes (409, ' +
    '`details.reason` seats_insufficient). New people get a pending account and an invitation email (through SMTP, to the ' +
    'person only) with a link to set a password, queued and sent after the commit (the answer does not wait for SMTP); the answer ' +
    'says whether each email was queued, never its link.',
  tags: ['members'],
  auth: 'credential',
  write: true,
  bodyLimit: 2 * 1024 * 1024,
  textBody: 'text/csv',
  query: z.strictObject({ source: Source.optional(), dryRun: z.enum(['true', 'false']).optional() }),
  body: z.union([MemberList, z.strictObject({ source: Source.optional(), members: MemberList, dryRun: z.boolean().default(false) })]),
  response: {
    status: 200,
    description: 'What the import did (or, with dryRun, would do).',
    schema: z.object({
      source: z.string().nullable(),
      dryRun: z.boolean(),
      summary: z.object(Object.fromEntries(OUTCOMES.map((o) => [o, z.number().int()]))),
      seats: Seats.extend({ after: z.number().int() }),
      results: z.array(
        z.object({
          row: z.number().int(),
          email: z.string(),
          outcome: z.enum([...OUTCOMES, 'duplicate']),
          accountId: z.string().nullable(),
          reason: z.string().optional(),
        }),
      ),
      invitations: z.array(Invitation),
    }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_payload', 'malformed_json', 'payload_too_large', 'conflict'],
  async handler({ db, deps, principal, body, query, dryRun: headerDryRun }) {
    const list = typeof body === 'string' || Array.isArray(body) ? { members: body } : body;
    const source = (!Array.isArray(body) && typeof body === 'object' ? body.source : undefined) ?? query.source ?? null;
    const dryRun = (!Array.isArray(body) && typeof body === 'object' && body.dryRun) || query.dryRun === 'true';
    const people = readMemberList(list.members);
    const result = await importMembers(db, invitationContext(deps), { companyId: companyOf(principal), source, dryRun, people });
    // The emails are outbox rows of this transaction: a header dry run (rolled back) queues none.
    return { data: result, ...(headerDryRun ? { plan: { ...result, invitations: [] } } : {}) };
  },
});

export const reissueInvitationRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/members/{accountId}/invitation',
  operationId: 'reissueMemberInvitation',
  summary: 'Email a pending member a new invitation link (developers); earlier links stop working',
  description:
    'The email goes to the account’s own address, queued and sent after the commit; the answer says whether it was queued, never ' +
    `its link. At most ${RESEND_LIMITS.perMember.max} re-sends an hour per member and ${RESEND_LIMITS.perCompany.max} per company ` +
    '(429 rate_limited with Retry-After beyond).',
  tags: ['members'],
  auth: 'credential',
  write: true,
  params: z.object({ accountId: AccountId }),
  response: { status: 201, description: 'What becomes of the email.', schema: Invitation },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'user_not_found', 'conflict', 'rate_limited'],
  // On the pool, before the transaction: a refused or dry-run re-send counts too.
  prepare: ({ deps, principal, params }) => consumeResendBudget(deps.db, deps.clock, companyOf(principal), params.accountId),
  handler: async ({ db, deps, principal, params }) => ({
    data: await resendInvitation(db, invitationContext(deps), companyOf(principal), params.accountId),
  }),
});

export const setSeatLimitRoute = defineRoute({
  method: 'put',
  path: '/api/v1/admin/organizations/{rid}/seats',
  operationId: 'adminSetSeatLimit',
  summary: 'Set how many licenses a company may hold (operators; null: no limit)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: z.object({ rid: CellId }),
  body: z.strictObject({ limit: z.number().int().min(0).max(10_000_000).nullable() }),
  response: { status: 200, description: 'The company’s seats.', schema: z.object({ cellId: z.string(), seats: Seats }) },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'],
  handler: async ({ db, params, body }) => ({ data: await setSeatLimit(db, params.rid, body.limit) }),
});

export const activateAccountRoute = defineRoute({
  method: 'post',
  path: '/api/v1/web/invitations/accept',
  operationId: 'webAcceptInvitation',
  summary: 'Set the first password of an imported (pending) account with its invitation link',
  description: 'Called by the web sign-in page opened from the invitation link; then sign in as usual. Only from this site’s own pages.',
  tags: ['web'],
  auth: 'none',
  rateLimit: { perMinute: 30 },
  write: true,
  body: z.strictObject({ invitation: z.string().min(1).max(64), password: NewPassword }),
  response: {
    status: 200,
    description: 'The account is active; sign in with its email or username and the new password.',
    schema: z.object({ activated: z.literal(true), username: z.string(), email: z.string() }),
  },
  errors: ['forbidden', 'invalid_credentials', 'invalid_payload', 'rate_limited'],
  async prepare({ ctx, deps, body }) {
    assertSameOrigin(ctx, deps.addresses().baseUrl);
    return hashPassword(body.password, deps.passwordHashing);
  },
  async handler({ db, deps, body, prepared: passwordHash }) {
    const account = await activateAccount(db, deps.clock, body.invitation, passwordHash);
    return { data: { activated: true as const, username: account.username, email: account.email } };
  },
});

export const memberRoutes = [listMembersRoute, importMembersRoute, reissueInvitationRoute, setSeatLimitRoute, activateAccountRoute];
