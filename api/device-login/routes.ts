import { z } from 'zod';
import { chooseCompany } from '../accounts/choose-company.ts';
import { membershipsOf } from '../accounts/repository.ts';
import { roleFromLicense } from '../auth/principal.ts';
import type { CompanyRole } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { defineRoute } from '../http/route.ts';
import { DEFAULT_CLIENT_NAME, issueKey } from '../keys/issue-key.ts';
import { CellId, ClientName, IssuedKeyResponse } from '../keys/schemas.ts';
import { consume } from '../rate-limit/rate-limit.ts';
import { newId, randomBase62, sha256 } from '../security/random.ts';
import { type DeviceLogin, effectiveStatus, findByUserCode, markExpired } from './find-device-login.ts';
import { DEVICE_LOGIN } from './settings.ts';
import { formatUserCode, generateUserCode, normalizeUserCode, USER_CODE_PATTERN } from './user-code.ts';

const expired = (why: string) => new ApiError('device_code_expired', 400, undefined, why);
/** Accepts what people type (any case, spaces, with or without the hyphen). */
const TypedUserCode = z
  .string()
  .max(20)
  .transform((s, ctx) => {
    const code = normalizeUserCode(s);
    if (!code) ctx.addIssue({ code: 'custom', message: `must be a code like ${'BCDF-GHJK'} (${USER_CODE_PATTERN.source})` });
    return code ?? '';
  });

export const createDeviceCodeRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/device-codes',
  operationId: 'createDeviceCode',
  summary: 'Start a device login (RFC 8628): a device code for the client, a user code for the person',
  tags: ['device-login'],
  auth: 'none',
  rateLimit: { perMinute: 10 },
  write: true,
  body: z.strictObject({ clientName: ClientName.optional() }),
  response: {
    status: 201,
    description: 'Show userCode and verificationUri to the person; poll device-tokens with deviceCode.',
    schema: z.object({
      deviceCode: z.string(),
      userCode: z.string(),
      verificationUri: z.string(),
      verificationUriComplete: z.string(),
      expiresIn: z.number().int(),
      interval: z.number().int(),
    }),
  },
  errors: ['rate_limited'],
  async handler({ db, body, deps, afterCommit }) {
    const deviceCode = randomBase62(32); // 256 bits, 43 characters of [0-9A-Za-z]
    let userCode = generateUserCode();
    // Pending user codes must be unique; a clash in 2.6e10 is rare, so simply draw again.
    while (await db.selectFrom('device_logins').select('id').where('user_code', '=', userCode).where('status', '=', 'pending').executeTakeFirst()) {
      userCode = generateUserCode();
    }
    const id = newId('dev');
    const expiresAt = new Date(Date.now() + DEVICE_LOGIN.expiresInSeconds * 1000);
    await db
      .insertInto('device_logins')
      .values({
        id,
        device_code_hash: sha256(deviceCode),
        user_code: userCode,
        client_name: body.clientName ?? DEFAULT_CLIENT_NAME,
        status: 'pending',
        interval_seconds: DEVICE_LOGIN.intervalSeconds,
        expires_at: expiresAt,
      })
      .execute();
    afterCommit(() => deps.workflows.deviceLoginStarted(id, expiresAt));
    const verificationUri = `${deps.addresses().baseUrl}/device`;
    const display = formatUserCode(userCode);
    return {
      data: {
        deviceCode,
        userCode: display,
        verificationUri,
        verificationUriComplete: `${verificationUri}?code=${display}`,
        expiresIn: DEVICE_LOGIN.expiresInSeconds,
        interval: DEVICE_LOGIN.intervalSeconds,
      },
      plan: { wouldCreate: { clientName: body.clientName ?? DEFAULT_CLIENT_NAME, expiresIn: DEVICE_LOGIN.expiresInSeconds } },
    };
  },
});

export const pollDeviceTokenRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/device-tokens',
  operationId: 'pollDeviceToken',
  summary: 'Poll a device login; once approved, the one-time key (issued exactly once)',
  tags: ['device-login'],
  auth: 'none',
  write: true,
  body: z.strictObject({ deviceCode: z.string().regex(/^[A-Za-z0-9_-]{32,128}$/) }),
  response: { status: 201, description: 'The key, shown only in this response.', schema: IssuedKeyResponse },
  errors: ['authorization_pending', 'access_denied', 'device_code_expired', 'rate_limited'],
  // Everything before the redemption runs on the pool: the poll clock and an expiry must stick
  // although the answer is an error (pending, denied, too fast, expired).
  async prepare({ deps, body }) {
    const login = await deps.db.selectFrom('device_logins').selectAll().where('device_code_hash', '=', sha256(body.deviceCode)).executeTakeFirst();
    if (!login) throw expired('Unknown or expired device code: start the login again.');
    const now = new Date();
    const status = effectiveStatus(login, now);
    if (status === 'expired') {
      await markExpired(deps.db, login.id);
      throw expired('The device code has expired: start the login again.');
    }
    if (status === 'consumed') throw expired('This device code was already used.');

    const claimed = await deps.db
      .updateTable('device_logins')
      .set({ last_polled_at: now })
      .where('id', '=', login.id)
      .where((eb) => eb.or([eb('last_polled_at', 'is', null), eb('last_polled_at', '<=', new Date(now.getTime() - login.interval_seconds * 1000))]))
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n) {
      throw new ApiError('rate_limited', 429, { interval: login.interval_seconds }, `Poll at most every ${login.interval_seconds} seconds.`, {
        'Retry-After': String(login.interval_seconds),
      });
    }
    if (status === 'pending') {
      throw new ApiError('authorization_pending', 400, { interval: login.interval_seconds }, 'Waiting for the person to approve in the browser.');
    }
    if (status === 'denied') throw new ApiError('access_denied', 403, undefined, 'The login was denied in the browser.');
    return login;
  },
  async handler({ deps, db, afterCommit, prepared: login }) {
    const issued = await redeem(db, login);
    afterCommit(() => deps.workflows.deviceLoginClosed(login.id, 'redeemed'));
    return { data: issued, plan: { wouldIssue: { clientName: login.client_name, role: login.role } } };
  },
});

/** Approved -> consumed exactly once, even for concurrent polls; the role is re-read from today's license. */
async function redeem(db: Parameters<typeof issueKey>[0], login: DeviceLogin): Promise<z.input<typeof IssuedKeyResponse>> {
  const won = await db
    .updateTable('device_logins')
    .set({ status: 'consumed' })
    .where('id', '=', login.id)
    .where('status', '=', 'approved')
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (won.numUpdatedRows === 0n) throw expired('This device code was already used or has expired.');
  const row = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .select(['l.role', 'l.admin', 'a.platform_staff', 'a.status', 'a.username', 'c.cell_id', 'c.name'])
    .where('l.account_id', '=', login.account_id!)
    .where('l.company_id', '=', login.company_id!)
    .executeTakeFirst();
  if (!row || row.status !== 'active') throw new ApiError('access_denied', 403, undefined, 'The approving account can no longer act for that company.');
  const current = roleFromLicense(row, row.platform_staff);
  const role: CompanyRole = login.role === 'developer' && current === 'developer' ? 'developer' : 'member';
  const key = await issueKey(db, { accountId: login.account_id!, companyId: login.company_id!, role, clientName: login.client_name, issuedBy: 'device' });
  await db.updateTable('device_logins').set({ key_id: key.id }).where('id', '=', login.id).execute();
  return {
    key: key.plaintext,
    keyId: key.id,
    prefix: key.displayPrefix,
    role,
    clientName: login.client_name,
    account: { id: login.account_id!, username: row.username },
    company: { cellId: row.cell_id, name: row.name },
  };
}

const UserCodeState = z.enum(['pending', 'approved', 'denied', 'expired', 'used', 'unknown']);

export const lookupUserCodeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/web/device-codes/{userCode}',
  operationId: 'webLookupUserCode',
  summary: 'What a user code stands for, for the approval page',
  tags: ['device-login'],
  auth: { accepts: ['session'] },
  params: z.object({ userCode: TypedUserCode }),
  response: {
    status: 200,
    description: 'The state of the request behind the code.',
    schema: z.object({ userCode: z.string(), state: UserCodeState, clientName: z.string().nullable(), expiresAt: z.iso.datetime().nullable() }),
  },
  errors: ['invalid_session', 'invalid_path', 'rate_limited'],
  async handler({ deps, db, params, principal }) {
    await consume(deps.db, DEVICE_LOGIN.codeEntryLimit, principal.account.id);
    const login = await findByUserCode(db, params.userCode);
    const status = login ? effectiveStatus(login) : undefined;
    const state: z.output<typeof UserCodeState> = status === undefined ? 'unknown' : status === 'consumed' ? 'used' : status;
    return {
      data: {
        userCode: formatUserCode(params.userCode),
        state,
        clientName: login?.client_name ?? null,
        expiresAt: login?.expires_at.toISOString() ?? null,
      },
    };
  },
});

export const decideDeviceCodeRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/device-codes/decision',
  operationId: 'decideDeviceCode',
  summary: 'Approve or deny a device login from a signed-in browser',
  description: 'Approving picks the company (cellId) the key acts for; the account’s role there becomes the key’s role.',
  tags: ['device-login'],
  auth: { accepts: ['session'] },
  write: true,
  body: z.strictObject({ userCode: TypedUserCode, decision: z.enum(['approve', 'deny']), cellId: CellId.optional() }),
  response: {
    status: 200,
    description: 'Recorded; the client’s next poll gets the key or access_denied.',
    schema: z.object({
      decision: z.enum(['approve', 'deny']),
      clientName: z.string(),
      company: z.object({ cellId: z.string(), name: z.string(), role: z.enum(['developer', 'member']) }).nullable(),
    }),
  },
  errors: ['invalid_session', 'forbidden', 'rate_limited', 'device_code_expired'],
  async prepare({ deps, body, principal }) {
    await consume(deps.db, DEVICE_LOGIN.codeEntryLimit, principal.account.id);
    const login = await deps.db.selectFrom('device_logins').selectAll().where('user_code', '=', body.userCode).where('status', '=', 'pending').executeTakeFirst();
    if (login && effectiveStatus(login) === 'expired') {
      await markExpired(deps.db, login.id);
      throw expired('This code has expired: start the login again on your device.');
    }
  },
  async handler({ deps, db, body, principal, afterCommit }) {
    const login = await db
      .selectFrom('device_logins')
      .selectAll()
      .where('user_code', '=', body.userCode)
      .where('status', '=', 'pending')
      .where('expires_at', '>', new Date())
      .forUpdate()
      .executeTakeFirst();
    if (!login) throw expired('Unknown, expired or already decided code: start the login again on your device.');
    if (body.decision === 'deny') {
      await db.updateTable('device_logins').set({ status: 'denied', account_id: principal.account.id, decided_at: new Date() }).where('id', '=', login.id).execute();
      afterCommit(() => deps.workflows.deviceLoginClosed(login.id, 'denied'));
      return { data: { decision: 'deny' as const, clientName: login.client_name, company: null } };
    }
    const company = chooseCompany(await membershipsOf(db, principal.account.id), body.cellId, 'invalid_payload');
    await db
      .updateTable('device_logins')
      .set({ status: 'approved', account_id: principal.account.id, company_id: company.companyId, role: company.role, decided_at: new Date() })
      .where('id', '=', login.id)
      .execute();
    return {
      data: { decision: 'approve' as const, clientName: login.client_name, company: { cellId: company.cellId, name: company.name, role: company.role } },
    };
  },
});

export const deviceLoginRoutes = [createDeviceCodeRoute, pollDeviceTokenRoute, lookupUserCodeRoute, decideDeviceCodeRoute];
