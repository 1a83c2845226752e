import { z } from 'zod';
import {
  checkDecision,
  checkDevicePoll,
  decideDeviceLogin,
  lookUpUserCode,
  normalizeUserCode,
  redeemDeviceLogin,
  startDeviceLogin,
  USER_CODE_PATTERN,
} from '../../domain/device-login/index.ts';
import { CellId, ClientName, IssuedKey } from '../../schemas/identity.ts';
import { defineRoute } from '../http/route.ts';

/** Accepts what people type (any case, spaces, with or without the hyphen). */
const TypedUserCode = z
  .string()
  .max(20)
  .transform((s, ctx) => {
    const code = normalizeUserCode(s);
    if (!code) ctx.addIssue({ code: 'custom', message: `must be a code like BCDF-GHJK (${USER_CODE_PATTERN.source})` });
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
  async handler({ db, body, deps }) {
    const { started, plan } = await startDeviceLogin(db, {
      clientName: body.clientName,
      verificationUri: `${deps.addresses().baseUrl}/device`,
    });
    return { data: started, plan };
  },
});

export const pollDeviceTokenRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/device-tokens',
  operationId: 'pollDeviceToken',
  summary: 'Poll a device login; once approved, the one-time key (issued exactly once)',
  tags: ['device-login'],
  auth: 'none',
  // Per IP, before the body is read: room for a dozen terminals behind one address polling every 5 s.
  rateLimit: { perMinute: 150 },
  write: true,
  body: z.strictObject({ deviceCode: z.string().regex(/^[A-Za-z0-9_-]{32,128}$/) }),
  response: { status: 201, description: 'The key, shown only in this response.', schema: IssuedKey },
  errors: ['authorization_pending', 'access_denied', 'device_code_expired', 'rate_limited'],
  prepare: ({ deps, body }) => checkDevicePoll(deps.db, body.deviceCode),
  async handler({ db, ip, prepared: login }) {
    const { issued, plan } = await redeemDeviceLogin(db, login, ip);
    return { data: issued, plan };
  },
});

export const lookupUserCodeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/web/device-codes/{userCode}',
  operationId: 'webLookupUserCode',
  summary: 'What a user code stands for, for the approval page',
  tags: ['device-login'],
  auth: 'credential',
  params: z.object({ userCode: TypedUserCode }),
  response: {
    status: 200,
    description: 'The state of the request behind the code.',
    schema: z.object({
      userCode: z.string(),
      state: z.enum(['pending', 'approved', 'denied', 'expired', 'used', 'unknown']),
      clientName: z.string().nullable(),
      expiresAt: z.iso.datetime().nullable(),
    }),
  },
  errors: ['invalid_session', 'invalid_path', 'rate_limited'],
  handler: async ({ deps, db, params, principal }) => ({ data: await lookUpUserCode(deps.db, deps.clock, db, principal, params.userCode) }),
});

export const decideDeviceCodeRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/device-codes/decision',
  operationId: 'decideDeviceCode',
  summary: 'Approve or deny a device login from a signed-in browser',
  description: 'Approving picks the company (cellId) the key acts for; the account’s role there becomes the key’s role.',
  tags: ['device-login'],
  auth: 'credential',
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
  prepare: ({ deps, body, principal }) => checkDecision(deps.db, deps.clock, principal, body.userCode),
  handler: async ({ db, body, principal }) => ({ data: await decideDeviceLogin(db, principal, body) }),
});

export const deviceLoginRoutes = [createDeviceCodeRoute, pollDeviceTokenRoute, lookupUserCodeRoute, decideDeviceCodeRoute];
