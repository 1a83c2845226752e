import { z } from 'zod';
import { changePassword, checkPassword } from '../../domain/accounts/index.ts';
import { hashPassword } from '../../domain/security/index.ts';
import { createSession, describeSession, endSession } from '../../domain/sessions/index.ts';
import { CompanySummary, NewPassword, Role } from '../../schemas/identity.ts';
import { assertSameOrigin } from '../auth/authenticate.ts';
import { readSessionCookie, writeSessionCookie } from '../auth/session-cookie.ts';
import { defineRoute } from '../http/route.ts';

// Checked before the body is read; the password check's own buckets (per IP and per
// account) are tighter and shared with terminal login.
const PRE_BODY_LIMIT = { perMinute: 60 };
const Login = z.string().min(1).max(254);
const Password = z.string().min(1).max(256);

export const signInRoute = defineRoute({
  method: 'post',
  path: '/api/v1/web/sessions',
  operationId: 'webSignIn',
  summary: 'Web sign-in: sets the session cookie',
  description: 'Same password check, lockout and rate limits as terminal login. Only from this site’s own pages.',
  tags: ['web'],
  auth: 'none',
  rateLimit: PRE_BODY_LIMIT,
  write: true,
  body: z.strictObject({ login: Login, password: Password }),
  response: {
    status: 201,
    description: 'Signed in; the session cookie is set.',
    schema: z.object({ account: z.object({ id: z.string(), username: z.string() }), expiresAt: z.iso.datetime() }),
  },
  errors: ['forbidden', 'invalid_credentials', 'email_verification_required', 'password_change_required', 'rate_limited'],
  async prepare({ ctx, deps, body, ip }) {
    // Login CSRF: another site must not sign a visitor into an account of its choosing.
    assertSameOrigin(ctx, deps.addresses().baseUrl);
    return checkPassword(deps, { ...body, ip });
  },
  async handler({ ctx, deps, db, afterCommit, prepared: account }) {
    const baseUrl = deps.addresses().baseUrl;
    const session = await createSession(db, account.id, readSessionCookie(ctx, baseUrl));
    afterCommit(async () => writeSessionCookie(ctx, baseUrl, session.token));
    return { data: { account: { id: account.id, username: account.username }, expiresAt: session.expiresAt.toISOString() } };
  },
});

export const changePasswordRoute = defineRoute({
  method: 'post',
  path: '/api/v1/web/password',
  operationId: 'webChangePassword',
  summary: 'Change a password (also a temporary one) on the web',
  tags: ['web'],
  auth: 'none',
  rateLimit: PRE_BODY_LIMIT,
  write: true,
  description:
    'Every web session of the account ends. Developer keys keep working unless `revokeKeys` is true ' +
    '(keys often run unattended; revoke them after a suspected leak).',
  body: z.strictObject({
    login: Login,
    currentPassword: Password,
    newPassword: NewPassword,
    revokeKeys: z.boolean().default(false).meta({ description: 'Also revoke every developer key of the account, for good.' }),
  }),
  response: {
    status: 200,
    description: 'Changed; sign in with the new password.',
    schema: z.object({ changed: z.literal(true), keysRevoked: z.number().int() }),
  },
  errors: ['forbidden', 'invalid_credentials', 'email_verification_required', 'rate_limited'],
  async prepare({ ctx, deps, body, ip }) {
    assertSameOrigin(ctx, deps.addresses().baseUrl);
    const account = await checkPassword(deps, { login: body.login, password: body.currentPassword, ip }, { allowPasswordChange: true });
    return { account, newHash: await hashPassword(body.newPassword, deps.passwordHashing) };
  },
  async handler({ db, body, ip, prepared: { account, newHash } }) {
    const { keysRevoked } = await changePassword(db, { accountId: account.id, newHash, revokeKeys: body.revokeKeys, ip });
    return { data: { changed: true as const, keysRevoked } };
  },
});

export const currentSessionRoute = defineRoute({
  method: 'get',
  path: '/api/v1/web/session',
  operationId: 'webCurrentSession',
  summary: 'The signed-in account and the companies it can act for',
  tags: ['web'],
  auth: 'credential',
  response: {
    status: 200,
    description: 'The session’s account.',
    schema: z.object({
      account: z.object({ id: z.string(), username: z.string(), email: z.string(), platformStaff: z.boolean() }),
      companies: z.array(CompanySummary.extend({ role: Role })),
    }),
  },
  errors: ['invalid_session'],
  handler: async ({ principal, db }) => ({ data: await describeSession(db, principal) }),
});

export const signOutRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/web/sessions/current',
  operationId: 'webSignOut',
  summary: 'Sign out: the session ends on the server and the cookie is cleared',
  tags: ['web'],
  auth: 'credential',
  write: true,
  response: { status: 200, description: 'Signed out.', schema: z.object({ signedOut: z.literal(true) }) },
  errors: ['invalid_session', 'forbidden'],
  async handler({ principal, ctx, deps, db, afterCommit }) {
    await endSession(db, principal);
    afterCommit(async () => writeSessionCookie(ctx, deps.addresses().baseUrl, null));
    return { data: { signedOut: true as const } };
  },
});

export const sessionRoutes = [signInRoute, changePasswordRoute, currentSessionRoute, signOutRoute];
