import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sha256 } from '../../../domain/security/random.ts';
import { type SmtpSink, startSmtpSink } from '../../support/app-workflows.ts';
import { snapshotService } from '../../support/db-snapshot.ts';
import { bearer, createOrganization, createUser, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Member import over HTTP (spec C, Member import): the situation table, externalId, seats in one
// transaction, idempotence, CSV quoting, and the invitation emails of pending accounts, read from
// a real SMTP server. The emails leave through the outbox and the worker (role all: the embedded Temporal).

let svc: TestService;
let smtp: SmtpSink;
let op: string;
let dev: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
const NEW_PASSWORD = 'a-brand-new-password';

beforeAll(async () => {
  smtp = await startSmtpSink();
  svc = await startTestService({ role: 'all', env: { SVC_SMTP_URL: smtp.url } });
  ({ op, accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await smtp?.stop();
});
beforeEach(() => resetRateLimits(svc));

const importJson = (body: unknown, key = dev, headers: Record<string, string> = {}) =>
  svc.call('POST', '/api/v1/developer/members/import', { body, headers: { ...bearer(key), ...headers } });
const importCsv = (csv: string | Buffer, query = '', key = dev) =>
  svc.call('POST', `/api/v1/developer/members/import${query}`, {
    rawBody: csv,
    headers: { ...bearer(key), 'content-type': 'text/csv; charset=utf-8' },
  });
const snapshot = () => snapshotService(svc, { ignoreTables: ['rate_limit_hits'], ignoreColumns: { developer_keys: ['last_used_at'] } });
const count = async (table: 'accounts' | 'licenses') => (await svc.database.db.selectFrom(table).selectAll().execute()).length;
const members = async (key = dev) => (await svc.call('GET', '/api/v1/developer/members', { headers: bearer(key) })).body.data;
/** The emails to this address, once there are at least `count` (they go out after the commit, from the worker). */
const mailsTo = async (email: string, count = 1) => {
  const mine = () => smtp.received.filter((m) => m.to.includes(email));
  await vi.waitFor(() => expect(mine().length).toBeGreaterThanOrEqual(count), { timeout: 60_000, interval: 100 });
  return mine();
};
/** The invitation link in the `count`th email to this address. */
const mailedLink = async (email: string, count = 1) => {
  const mail = (await mailsTo(email, count))[count - 1];
  const url = /(\S+\/signin\?invitation=\S+)/.exec(mail?.text ?? '')?.[1];
  if (!url) throw new Error(`no invitation link mailed to ${email}`);
  return new URL(url);
};
const setSeats = (cellId: string, limit: number | null) =>
  svc.call('PUT', `/api/v1/admin/organizations/${cellId}/seats`, { body: { limit }, headers: bearer(op) });

describe('the situation table', () => {
  it('creates, keeps and never downgrades; an account of another company, active or disabled, is a create', async () => {
    const disabled = await createUser(svc, op, 'dora', [{ cellId: 'cell-globex', role: 'member' }]);
    expect(
      (await svc.call('PATCH', `/api/v1/admin/users/${disabled.id}`, { body: { status: 'disabled' }, headers: bearer(op) })).status,
    ).toBe(200);
    const res = await importJson({
      source: 'hr-system',
      members: [
        { email: 'new.person@example.com', name: 'New Person', externalId: 'hr-1' },
        { email: 'gus@example.com', name: 'Gus (acme)' }, // a developer of another company: gets a member license here
        { email: 'MO@example.com' }, // already a member
        { email: 'dana@example.com' }, // a developer: never downgraded
        { email: 'dora@example.com' }, // disabled, in another company: acme cannot tell
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.summary).toEqual({ create: 3, grant: 0, keep: 1, keep_developer: 1, skip_disabled: 0, conflict: 0 });
    expect(res.body.data.source).toBe('hr-system');
    expect(res.body.data.seats).toEqual({ limit: null, used: 3, after: 6 });
    expect(res.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual([
      'create',
      'create',
      'keep',
      'keep_developer',
      'create',
    ]);
    const list = await members();
    const byEmail = (email: string) => list.members.find((m: { email: string }) => m.email === email);
    expect(byEmail('new.person@example.com')).toMatchObject({
      status: 'pending',
      activated: false,
      role: 'member',
      name: 'New Person',
      externalId: 'hr-1',
    });
    // Shown as acme gave them until they sign in: not their username, name or state.
    expect(byEmail('gus@example.com')).toMatchObject({
      role: 'member',
      status: 'pending',
      username: 'gus@example.com',
      name: 'Gus (acme)',
    });
    expect(byEmail('dora@example.com')).toMatchObject({ role: 'member', status: 'pending', username: 'dora@example.com' });
    expect(byEmail('dana@example.com')).toMatchObject({ role: 'developer' });
    // gus stays a developer of his own company, and once he signs in acme sees his account.
    const globex = await svc.call('GET', '/api/v1/admin/organizations/cell-globex', { headers: bearer(op) });
    expect(JSON.stringify(globex.body.data)).toContain(accounts.gus);
    const gusLicenses = await svc.database.db.selectFrom('licenses').select('role').where('account_id', '=', accounts.gus).execute();
    expect(gusLicenses.map((l) => l.role).sort()).toEqual(['developer', 'member']);
    await passwordKey(svc, 'gus', 'cell-globex');
    expect((await members()).members.find((m: { email: string }) => m.email === 'gus@example.com')).toMatchObject({
      status: 'active',
      username: 'gus',
    });
  });

  it('leaves platform staff unchanged', async () => {
    const staff = await svc.database.db
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where('platform_staff', '=', true)
      .executeTakeFirstOrThrow();
    const res = await importJson([{ email: staff.email }]);
    expect(res.body.data.summary.keep_developer).toBe(1);
    const acme = await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-acme').executeTakeFirstOrThrow();
    const licenses = await svc.database.db.selectFrom('licenses').select('company_id').where('account_id', '=', staff.id).execute();
    expect(licenses.map((l) => l.company_id)).not.toContain(acme.id);
  });

  it('a platform staff account with no license in the company → keep_developer, unchanged, and no account id (was the staff account’s id)', async () => {
    const staff = await svc.database.db
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where('platform_staff', '=', true)
      .executeTakeFirstOrThrow();
    const res = await importJson([{ email: staff.email }]);
    expect(res.body.data.results).toEqual([{ row: 0, email: staff.email, outcome: 'keep_developer', accountId: null }]);
  });

  it('a platform staff account holding a member license in the company → keep (was keep_developer: staff is not a company developer)', async () => {
    const sam = await createUser(svc, op, 'sam-staff', [{ cellId: 'cell-acme', role: 'member' }]);
    await svc.database.db.updateTable('accounts').set({ platform_staff: true }).where('id', '=', sam.id).execute();
    const res = await importJson([{ email: 'sam-staff@example.com' }]);
    expect(res.body.data.summary).toMatchObject({ keep: 1, keep_developer: 0 });
    expect(res.body.data.results).toEqual([{ row: 0, email: 'sam-staff@example.com', outcome: 'keep', accountId: sam.id }]);
    const license = await svc.database.db.selectFrom('licenses').select('role').where('account_id', '=', sam.id).execute();
    expect(license).toEqual([{ role: 'member' }]);
  });

  it('the same list twice changes nothing the second time', async () => {
    const list = [{ email: 'twice.a@example.com', externalId: 'tw-a' }, { email: 'twice.b@example.com' }, { email: 'mo@example.com' }];
    expect((await importJson(list)).body.data.summary.create).toBe(2);
    // Their links are made when the worker sends the emails, after the commit.
    await mailsTo('twice.a@example.com');
    await mailsTo('twice.b@example.com');
    await vi.waitFor(async () => expect(await svc.database.db.selectFrom('outbox').select('id').execute()).toEqual([]));
    const before = await snapshot();
    const again = await importJson(list);
    expect(again.body.data.summary).toEqual({ create: 0, grant: 0, keep: 3, keep_developer: 0, skip_disabled: 0, conflict: 0 });
    expect(again.body.data.invitations).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('externalId finds the same person under a new email; a clash is a conflict', async () => {
    await importJson([{ email: 'old.mail@example.com', externalId: 'hr-77' }]);
    const accountsBefore = await count('accounts');
    const moved = await importJson([{ email: 'new.mail@example.com', externalId: 'hr-77' }]);
    expect(moved.body.data.summary.keep).toBe(1);
    expect(await count('accounts')).toBe(accountsBefore);
    const clash = await importJson([{ email: 'mo@example.com', externalId: 'hr-77' }]);
    expect(clash.body.data.summary.conflict).toBe(1);
    expect(clash.body.data.results[0].reason).toContain('another account');
  });

  it('duplicate emails in one list count once; disagreeing externalIds are a conflict', async () => {
    const res = await importJson([
      { email: 'dup@example.com', externalId: 'd-1' },
      { email: 'DUP@example.com' },
      { email: 'dup@example.com', externalId: 'd-2' },
    ]);
    expect(res.body.data.summary).toMatchObject({ create: 1, conflict: 1 });
    expect(res.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['create', 'duplicate', 'conflict']);
    const created = await svc.database.db.selectFrom('accounts').select('id').where('email', '=', 'dup@example.com').execute();
    expect(created).toHaveLength(1);
  });

  it('a dry run (body or header) plans without changing anything', async () => {
    // Earlier tests' emails may still be going out (each makes its link, and its outbox row goes):
    // those two tables are compared by what the dry runs queued instead. A link is only ever made
    // from a queued row.
    const quietSnapshot = () =>
      snapshotService(svc, {
        ignoreTables: ['rate_limit_hits', 'account_invitations', 'outbox'],
        ignoreColumns: { developer_keys: ['last_used_at'] },
      });
    const queuedSince = async (since: Date) =>
      (await svc.database.db.selectFrom('outbox').select('id').where('created_at', '>=', since).execute()).length;
    const start = new Date(Date.now() - 1000);
    await vi.waitFor(async () => expect(await queuedSince(start)).toBe(0));
    const before = await quietSnapshot();
    const dry = await importJson({ members: [{ email: 'dry.one@example.com' }], dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ dryRun: true, summary: { create: 1 }, invitations: [] });
    const header = await importJson([{ email: 'dry.two@example.com' }], dev, { 'x-svc-dry-run': 'true' });
    expect(header.status).toBe(202);
    expect(header.body.data.plan.summary.create).toBe(1);
    expect(header.body.data.plan.invitations).toEqual([]);
    expect(await quietSnapshot()).toEqual(before);
    expect(await queuedSince(start)).toBe(0);
  });
});

describe('CSV', () => {
  it('reads a BOM, CRLF, quoted fields and any column order', async () => {
    const csv = '\uFEFFName,externalId,EMAIL\r\n"Smith, Jane ""JJ""",csv-1,jane.smith@example.com\r\n"Lee\r\nKim",,lee.kim@example.com\r\n';
    const res = await importCsv(Buffer.from(csv, 'utf8'), '?source=csv-export');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.summary.create).toBe(2);
    expect(res.body.data.source).toBe('csv-export');
    const list = (await members()).members;
    expect(list.find((m: { email: string }) => m.email === 'jane.smith@example.com')).toMatchObject({
      name: 'Smith, Jane "JJ"',
      externalId: 'csv-1',
    });
    expect(list.find((m: { email: string }) => m.email === 'lee.kim@example.com')).toMatchObject({ name: 'Lee\r\nKim', externalId: null });
  });

  it('accepts CSV text as members in a JSON body too', async () => {
    const res = await importJson({ members: 'email\ncsv.in.json@example.com\n', dryRun: true });
    expect(res.body.data.summary.create).toBe(1);
  });

  it('refuses unknown columns, a header without email, broken quoting and bad emails with their paths', async () => {
    const unknown = await importCsv('email,phone\na@example.com,1\n');
    expect(unknown.body.error.details.problems).toContainEqual(expect.objectContaining({ path: 'members.header.phone' }));
    const noEmail = await importCsv('name\nJo\n');
    expect(noEmail.body.error.details.problems).toContainEqual(expect.objectContaining({ path: 'members.header', code: 'missing_column' }));
    const broken = await importCsv('email,name\n"a@example.com,Jo\n');
    expect([broken.status, broken.body.error.code]).toEqual([400, 'invalid_payload']);
    const bad = await importCsv('email\nnot-an-email\n');
    expect(bad.body.error.details.problems).toContainEqual(expect.objectContaining({ path: 'members.0.email' }));
  });

  it('a CSV header constructor (or toString, __proto__) fails the unknown-column check (constructor passed it)', async () => {
    for (const column of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await importCsv(`email,${column}\nann@example.com,1\n`);
      expect([res.status, res.body.error.code], column).toEqual([400, 'invalid_payload']);
      expect(res.body.error.details.problems, column).toEqual([
        { path: `members.header.${column}`, code: 'unrecognized_keys', message: `Unknown column "${column}" (email, name, externalId)` },
      ]);
    }
  });
});

describe('limits and seats', () => {
  const rows = (n: number, prefix: string) => ['email', ...Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`)].join('\n');

  it('refuses more than 1000 people as a whole', async () => {
    const before = await count('accounts');
    const res = await importCsv(rows(1001, 'too-many-'));
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(res.body.error.details).toMatchObject({ count: 1001, limit: 1000 });
    const json = await importJson(Array.from({ length: 1001 }, (_, i) => ({ email: `json-many-${i}@example.com` })));
    expect(json.status).toBe(400);
    expect(await count('accounts')).toBe(before);
  });

  it('one seat short changes nothing and says why; with the seat the 1000 arrive in one import', async () => {
    await createOrganization(svc, op, 'cell-initech', 'Initech');
    const boss = await createUser(svc, op, 'bill', [{ cellId: 'cell-initech', role: 'developer' }]);
    const key = await passwordKey(svc, boss.username);
    expect((await setSeats('cell-initech', 1000)).body.data).toEqual({ cellId: 'cell-initech', seats: { limit: 1000, used: 1 } });
    const before = await snapshot();
    const res = await importCsv(rows(1000, 'initech-'), '', key);
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(res.body.error.message).toContain('Not enough seats');
    expect(res.body.error.details).toMatchObject({
      reason: 'seats_insufficient',
      seats: { limit: 1000, used: 1, after: 1001 },
      missing: 1,
    });
    expect(await snapshot()).toEqual(before);

    await setSeats('cell-initech', 1001);
    // The SMTP server answers nothing until released: the import must not wait for it.
    smtp.hold();
    const ok = await importCsv(rows(1000, 'initech-'), '', key).finally(() => smtp.release());
    expect(ok.status).toBe(200);
    expect(ok.body.data.seats).toEqual({ limit: 1001, used: 1, after: 1001 });
    expect(ok.body.data.invitations).toHaveLength(1000);
    expect(new Set(ok.body.data.invitations.map((i: { status: string }) => i.status))).toEqual(new Set(['queued']));
    expect((await members(key)).members).toHaveLength(1001);
    // Then all 1000 go out after the commit, each to its own address.
    const toInitech = () => smtp.received.filter((m) => m.to.some((to) => to.startsWith('initech-')));
    await vi.waitFor(() => expect(toInitech()).toHaveLength(1000), { timeout: 150_000, interval: 250 });
  }, 180_000); // 1000 invitation emails through the worker and a real SMTP server, on a shared machine
});

describe('pending accounts and invitations', () => {
  const accept = (invitation: string) =>
    svc.call('POST', '/api/v1/web/invitations/accept', {
      body: { invitation, password: NEW_PASSWORD },
      headers: { origin: svc.addresses.baseUrl },
    });

  it('cannot sign in until the emailed invitation sets a password; the link works once and is stored as a hash', async () => {
    const res = await importJson([{ email: 'invitee@example.com' }]);
    expect(res.body.data.invitations).toEqual([{ email: 'invitee@example.com', status: 'queued' }]);
    const url = await mailedLink('invitee@example.com');
    const token = url.searchParams.get('invitation')!;
    expect(`${url.origin}${url.pathname}`).toBe(`${svc.addresses.baseUrl}/signin`);
    expect(JSON.stringify(res.body)).not.toContain(token);
    const stored = await svc.database.db.selectFrom('account_invitations').select(['hash', 'expires_at']).execute();
    expect(stored.map((s) => s.hash)).toContainEqual(sha256(token));
    expect(JSON.stringify(stored)).not.toContain(token);

    const login = { login: 'invitee@example.com', password: NEW_PASSWORD };
    const early = await svc.call('POST', '/api/v1/developer/password-tokens', { body: login });
    expect(early.body.error.code).toBe('invalid_credentials');
    const accepted = await accept(token);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data).toEqual({ activated: true, username: 'invitee@example.com', email: 'invitee@example.com' });
    const account = await svc.database.db
      .selectFrom('accounts')
      .select(['status', 'email_verified'])
      .where('email', '=', 'invitee@example.com')
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ status: 'active', email_verified: true });
    expect((await svc.call('POST', '/api/v1/developer/password-tokens', { body: login })).status).toBe(201);
    expect((await accept(token)).body.error.code).toBe('invalid_credentials');
    const crossSite = await svc.call('POST', '/api/v1/web/invitations/accept', { body: { invitation: token, password: NEW_PASSWORD } });
    expect(crossSite.status).toBe(403);
  });

  it('an expired link is refused (7 days)', async () => {
    await importJson([{ email: 'slow.reader@example.com' }]);
    const token = (await mailedLink('slow.reader@example.com')).searchParams.get('invitation')!;
    await svc.database.db
      .updateTable('account_invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('hash', '=', sha256(token))
      .execute();
    expect((await accept(token)).body.error.code).toBe('invalid_credentials');
  });

  it('a re-sent invitation is emailed to the account, not answered; the old link stops; an active member needs none', async () => {
    const res = await importJson([{ email: 'lost.link@example.com' }]);
    const { accountId } = res.body.data.results[0];
    const old = (await mailedLink('lost.link@example.com')).searchParams.get('invitation')!;
    const reissued = await svc.call('POST', `/api/v1/developer/members/${accountId}/invitation`, { headers: bearer(dev) });
    expect(reissued.status, JSON.stringify(reissued.body)).toBe(201);
    expect(reissued.body.data).toEqual({ email: 'lost.link@example.com', status: 'queued' });
    const fresh = (await mailedLink('lost.link@example.com', 2)).searchParams.get('invitation')!;
    expect(fresh).not.toBe(old);
    expect((await accept(old)).status).toBe(401);
    expect((await accept(fresh)).status).toBe(200);
    const again = await svc.call('POST', `/api/v1/developer/members/${accountId}/invitation`, { headers: bearer(dev) });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
    const foreign = await svc.call('POST', `/api/v1/developer/members/acc_0000000000000000/invitation`, { headers: bearer(dev) });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'user_not_found']);
  });
});

describe('invitations leave through the outbox, and re-sends are limited', () => {
  it('an email the SMTP server refuses is retried until it is taken, with a working link (a refusal was final: status failed)', async () => {
    smtp.refuseNext(1);
    const res = await importJson([{ email: 'refused.once@example.com' }]);
    expect(res.body.data.invitations).toEqual([{ email: 'refused.once@example.com', status: 'queued' }]);
    const link = await mailedLink('refused.once@example.com');
    expect(smtp.refused).toBeGreaterThanOrEqual(1);
    const accepted = await svc.call('POST', '/api/v1/web/invitations/accept', {
      body: { invitation: link.searchParams.get('invitation'), password: NEW_PASSWORD },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  });

  it('a member’s sixth re-send within the hour answers 429 rate_limited with Retry-After; another member’s still goes (re-sends had no limit)', async () => {
    const res = await importJson([{ email: 'resend.a@example.com' }, { email: 'resend.b@example.com' }]);
    const [a, b] = res.body.data.results.map((r: { accountId: string }) => r.accountId);
    const resend = (accountId: string) => svc.call('POST', `/api/v1/developer/members/${accountId}/invitation`, { headers: bearer(dev) });
    for (let i = 0; i < 5; i++) expect((await resend(a)).status).toBe(201);
    const limited = await resend(a);
    expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await resend(b)).status).toBe(201);
  });

  it('a company’s 201st re-send within the hour answers 429, whoever it is for (re-sends had no limit)', async () => {
    const res = await importJson([{ email: 'resend.c@example.com' }]);
    const { accountId } = res.body.data.results[0];
    // Every attempt counts, also one for no member of the company (404).
    for (let i = 0; i < 200; i++) {
      const unknown = `acc_${String(i).padStart(16, '0')}`;
      expect((await svc.call('POST', `/api/v1/developer/members/${unknown}/invitation`, { headers: bearer(dev) })).status).toBe(404);
    }
    const limited = await svc.call('POST', `/api/v1/developer/members/${accountId}/invitation`, { headers: bearer(dev) });
    expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('an import never gives the importing company a way into the account (issue 27 finding 6)', () => {
  it('account pre-takeover: A imports boss@globex.test, gets no link or token, cannot sign in as boss; after Globex imports boss, A still has no access and the emailed link verifies the email', async () => {
    const boss = 'boss@globex.test';
    const globexDev = await passwordKey(svc, 'gus', 'cell-globex');
    const mailsBefore = smtp.received.length;

    // Company A (acme) imports someone of Globex: the answer says an email was sent, nothing more.
    const imported = await importJson([{ email: boss }]);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.data.invitations).toEqual([{ email: boss, status: 'queued' }]);
    const { accountId } = imported.body.data.results[0];
    // Re-sending goes to the account's own address; A gets no link either way.
    const resent = await svc.call('POST', `/api/v1/developer/members/${accountId}/invitation`, { headers: bearer(dev) });
    expect(resent.body.data).toEqual({ email: boss, status: 'queued' });
    const mails = await mailsTo(boss, 2);
    expect(mails.map((m) => m.to)).toEqual([[boss], [boss]]);
    const tokens = mails.map((m) => /invitation=([0-9A-Za-z]+)/.exec(m.text)?.[1]);
    // No other address got boss's links (mail still going out for earlier tests' members may arrive meanwhile).
    for (const other of smtp.received.slice(mailsBefore).filter((m) => !m.to.includes(boss)))
      for (const token of tokens) expect(other.text).not.toContain(token);
    for (const answer of [imported.body, resent.body, (await members()).members.find((m: { email: string }) => m.email === boss)]) {
      const text = JSON.stringify(answer);
      expect(text).not.toMatch(/invitation=|\/signin/);
      for (const token of tokens) expect(text).not.toContain(token);
    }
    // What A can try: no password of its choosing signs in as boss, and A's key sees no email verification state.
    const asBoss = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: boss, password: NEW_PASSWORD } });
    expect(asBoss.body.error.code).toBe('invalid_credentials');
    expect(Object.keys((await members()).members[0])).not.toContain('emailVerified');

    // Globex imports the same person later; boss (and only boss) has the latest link.
    const globexImport = await importJson([{ email: boss }], globexDev);
    expect(globexImport.status, JSON.stringify(globexImport.body)).toBe(200);
    const link = await mailedLink(boss, 3);
    const accepted = await svc.call('POST', '/api/v1/web/invitations/accept', {
      body: { invitation: link.searchParams.get('invitation'), password: 'boss-own-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const account = await svc.database.db
      .selectFrom('accounts')
      .select(['status', 'email_verified'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ status: 'active', email_verified: true });
    // Boss signs in to Globex with their own password; A's guess still does not work.
    expect(
      (
        await svc.call('POST', '/api/v1/developer/password-tokens', {
          body: { login: boss, password: 'boss-own-password', cellId: 'cell-globex' },
        })
      ).status,
    ).toBe(201);
    const again = await svc.call('POST', '/api/v1/developer/password-tokens', {
      body: { login: boss, password: NEW_PASSWORD, cellId: 'cell-globex' },
    });
    expect(again.body.error.code).toBe('invalid_credentials');
  });
});

describe('an import tells a company nothing about accounts it does not know (issue 28 finding 8)', () => {
  it('a dry run answers the same for no account and for an active, pending or disabled account in another company (grant vs create leaked it)', async () => {
    const globexDev = await passwordKey(svc, 'gus', 'cell-globex');
    await createUser(svc, op, 'ava', [{ cellId: 'cell-globex', role: 'member' }]);
    const gone = await createUser(svc, op, 'gordon', [{ cellId: 'cell-globex', role: 'member' }]);
    await svc.call('PATCH', `/api/v1/admin/users/${gone.id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect((await importJson([{ email: 'pat.pending@globex.test' }], globexDev)).body.data.summary.create).toBe(1);

    const people = ['nobody.here@example.com', 'ava@example.com', 'pat.pending@globex.test', 'gordon@example.com'];
    const dry = await importJson({ members: people.map((email) => ({ email })), dryRun: true });
    expect(dry.body.data.summary).toEqual({ create: 4, grant: 0, keep: 0, keep_developer: 0, skip_disabled: 0, conflict: 0 });
    expect(dry.body.data.results).toEqual(people.map((email, row) => ({ row, email, outcome: 'create', accountId: null })));
    expect(dry.body.data.seats.after - dry.body.data.seats.used).toBe(4);

    // The real import: each is licensed and invited alike; the member list shows each as acme gave it.
    const real = await importJson(people.map((email) => ({ email, name: `Name of ${email}` })));
    expect(real.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['create', 'create', 'create', 'create']);
    expect(real.body.data.invitations).toEqual(people.map((email) => ({ email, status: 'queued' })));
    const shown = (await members()).members.filter((m: { email: string }) => people.includes(m.email));
    expect(shown.map(({ accountId: _id, ...m }: { accountId: string }) => m)).toEqual(
      [...people].sort().map((email) => ({
        username: email,
        email,
        name: `Name of ${email}`,
        role: 'member',
        admin: false,
        status: 'pending',
        activated: false,
        externalId: null,
      })),
    );
    // Re-sending answers alike too (an active account gets a sign-in note, a pending one a new link).
    for (const m of shown) {
      const resent = await svc.call('POST', `/api/v1/developer/members/${m.accountId}/invitation`, { headers: bearer(dev) });
      expect([resent.status, resent.body.data]).toEqual([201, { email: m.email, status: 'queued' }]);
    }
    for (const mail of await mailsTo('ava@example.com', 2)) expect(mail.text).not.toContain('invitation=');
    expect((await mailedLink('pat.pending@globex.test', 3)).searchParams.get('invitation')).toMatch(/^[0-9A-Za-z]{33}$/);
  });

  it('grant and skip_disabled only for people the company knew: a former member, or a member whose account it saw disabled', async () => {
    const former = await createUser(svc, op, 'fern', [{ cellId: 'cell-acme', role: 'member' }]);
    const formerOff = await createUser(svc, op, 'fritz', [{ cellId: 'cell-acme', role: 'member' }]);
    const off = await createUser(svc, op, 'otto', [{ cellId: 'cell-acme', role: 'member' }]);
    for (const id of [former.id, formerOff.id]) {
      expect((await svc.call('DELETE', `/api/v1/admin/users/${id}/organizations/cell-acme`, { headers: bearer(op) })).status).toBe(200);
    }
    for (const id of [formerOff.id, off.id]) {
      await svc.call('PATCH', `/api/v1/admin/users/${id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    }
    const res = await importJson([{ email: 'fern@example.com' }, { email: 'fritz@example.com' }, { email: 'otto@example.com' }], dev, {
      'x-svc-dry-run': 'true',
    });
    expect(res.body.data.plan.results.map((r: { outcome: string }) => r.outcome)).toEqual(['grant', 'skip_disabled', 'skip_disabled']);
    // The same people seen from Globex, which never knew them: plain creates.
    const globex = await importJson(
      [{ email: 'fern@example.com' }, { email: 'fritz@example.com' }, { email: 'otto@example.com' }],
      await passwordKey(svc, 'gus', 'cell-globex'),
      {
        'x-svc-dry-run': 'true',
      },
    );
    expect(globex.body.data.plan.summary).toMatchObject({ create: 3, grant: 0, skip_disabled: 0 });
  });
});
