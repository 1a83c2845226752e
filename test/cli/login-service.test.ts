import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, PASSWORD, passwordKey, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { cliHome, jsonOf, runSvc, storedLoginFile } from './support/cli.ts';
import { Terminal } from './support/terminal.ts';

// Logins stored per service (issue 35, deliver 5): several coexist, a command for another
// service names the one logged in to (exit 3), a file from before is still read; and a service
// that cannot be reached is "cannot reach" (exit 1), never "Not logged in".

let svc: TestService;
/** The same service under another name: a different address as far as logins go. */
let otherName: string;
const homes: Awaited<ReturnType<typeof cliHome>>[] = [];

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  otherName = svc.url!.replace('127.0.0.1', 'localhost');
}, 120_000);
afterAll(async () => {
  await svc?.close();
  for (const h of homes) await h.remove();
});
beforeEach(() => resetRateLimits(svc));

async function freshHome() {
  const home = await cliHome();
  homes.push(home);
  return home;
}

/** The login file as `svc login` wrote it before logins were kept per service: one login, at the top level. */
async function oldStyleLogin(dir: string, baseUrl: string) {
  const key = await passwordKey(svc, 'dana');
  const current = (await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).body.data.keys.find(
    (k: { current: boolean }) => k.current,
  );
  const login = {
    baseUrl,
    key,
    keyId: current.keyId,
    prefix: current.prefix,
    role: 'developer',
    account: { id: 'unused', username: 'dana' },
    company: { cellId: 'cell-acme', name: 'Acme' },
  };
  await mkdir(path.dirname(storedLoginFile(dir)), { recursive: true, mode: 0o700 });
  await writeFile(storedLoginFile(dir), JSON.stringify(login), { mode: 0o600 });
  return login;
}

/** A loopback port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('logins stored per service', () => {
  it('a login file from before (one login at the top level) still works: the user is not logged out', async () => {
    const home = await freshHome();
    await oldStyleLogin(home.dir, svc.url!);
    const run = await runSvc(['whoami', '--json'], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOf(run)).toMatchObject({ account: { username: 'dana' }, baseUrl: svc.url });
  });

  it('whoami for http://localhost:… while logged in to http://127.0.0.1:… says which and how to log in (exit 3)', async () => {
    const home = await freshHome();
    await oldStyleLogin(home.dir, svc.url!);
    const message = `You are logged in to ${svc.url}, not ${otherName}: run svc login --base-url ${otherName}`;
    const run = await runSvc(['whoami', '--base-url', otherName], { env: home.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(`Error: not_logged_in: ${message}\n`);
    const viaEnv = await runSvc(['apps', 'list', '--json'], { env: { ...home.env, SVC_BASE_URL: otherName } });
    expect(viaEnv.code).toBe(3);
    expect(jsonOf(viaEnv).error).toMatchObject({ code: 'not_logged_in', message });
  });

  it('logging in to a second service keeps the first login; logout forgets only its own', async () => {
    const home = await freshHome();
    const first = await oldStyleLogin(home.dir, svc.url!);
    const t = await Terminal.start(['login', '--password', '--base-url', otherName], home.env, home.dir);
    try {
      await t.waitFor(/Account \(username or email\)/);
      await t.type('gus');
      await t.press('Enter');
      await t.waitFor(/Password/);
      await t.type(PASSWORD);
      await t.press('Enter');
      expect(await t.exitCode()).toBe(0);
    } finally {
      await t.close();
    }
    const file = JSON.parse(await readFile(storedLoginFile(home.dir), 'utf8'));
    // The top level is the current login (the one the Node SDK reads); both are kept by address.
    expect(file).toMatchObject({ baseUrl: otherName, account: { username: 'gus' } });
    expect(Object.keys(file.logins).sort()).toEqual([svc.url, otherName].sort());
    expect(file.logins[svc.url!]).toMatchObject({ key: first.key, keyId: first.keyId });

    // No address given: the last login; each address with its own login, and the first key not revoked.
    expect(jsonOf(await runSvc(['whoami', '--json'], { env: home.env })).account.username).toBe('gus');
    const firstAgain = await runSvc(['whoami', '--json', '--base-url', svc.url!], { env: home.env });
    expect(firstAgain.code, firstAgain.stderr).toBe(0);
    expect(jsonOf(firstAgain).account.username).toBe('dana');

    const logout = await runSvc(['logout', '--json', '--base-url', otherName], { env: home.env });
    expect(jsonOf(logout)).toMatchObject({ loggedOut: true, keyRevoked: true, baseUrl: otherName });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(file.key) })).status).toBe(401);
    // The remaining login becomes the current one and still works.
    expect(JSON.parse(await readFile(storedLoginFile(home.dir), 'utf8'))).toMatchObject({ baseUrl: svc.url, key: first.key });
    expect(jsonOf(await runSvc(['whoami', '--json'], { env: home.env })).account.username).toBe('dana');
    const gone = await runSvc(['whoami', '--base-url', otherName], { env: home.env });
    expect([gone.code, gone.stderr]).toEqual([
      3,
      `Error: not_logged_in: You are logged in to ${svc.url}, not ${otherName}: run svc login --base-url ${otherName}\n`,
    ]);
  }, 60_000);
});

describe('a service that cannot be reached', () => {
  it('is "cannot reach <address>: connection refused" (exit 1), not "Not logged in", with or without a login', async () => {
    const home = await freshHome();
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const expected = `Error: unreachable: cannot reach ${nowhere}: connection refused (ECONNREFUSED)\n`;
    // No credential at all, a stored login for another service, and a key: each reaches nothing.
    const bare = await runSvc(['whoami', '--base-url', nowhere], { env: home.env });
    expect([bare.code, bare.stderr]).toEqual([1, expected]);
    await oldStyleLogin(home.dir, svc.url!);
    const elsewhere = await runSvc(['apps', 'list', '--base-url', nowhere], { env: home.env });
    expect([elsewhere.code, elsewhere.stderr]).toEqual([1, expected]);
    const withKey = await runSvc(['whoami', '--json'], { env: { ...home.env, SVC_BASE_URL: nowhere, SVC_API_KEY: 'svc-dk-anything' } });
    expect(withKey.code).toBe(1);
    expect(jsonOf(withKey).error).toMatchObject({
      code: 'unreachable',
      message: `cannot reach ${nowhere}: connection refused (ECONNREFUSED)`,
    });
    const login = await runSvc(['login', '--no-browser', '--base-url', nowhere], { env: home.env });
    expect([login.code, login.stderr]).toEqual([1, expected]);
  });

  it('is "cannot reach <address>: …" (exit 1) for a host name that does not resolve', async () => {
    const home = await freshHome();
    const run = await runSvc(['whoami', '--base-url', 'http://svc.invalid'], { env: home.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: unreachable: cannot reach http:\/\/svc\.invalid: host not found.*\n$/);
  });
});
