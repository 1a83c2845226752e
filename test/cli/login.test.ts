import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { bearer, PASSWORD, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fakeBrowser } from './support/browser-program.ts';
import { cliHome, jsonOf, runSvc, SVC_BIN, storedLoginFile } from './support/cli.ts';
import { Terminal } from './support/terminal.ts';

// svc login, logout, whoami and keys: password login at a real pseudo-terminal (tmux), device
// login approved in Chromium, the stored login's file mode, and logout revoking the key.

let svc: TestService;
let browser: Browser;
const homes: Awaited<ReturnType<typeof cliHome>>[] = [];
const terminals: Terminal[] = [];

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  for (const t of terminals) await t.close();
  await browser?.close();
  await svc?.close();
  for (const h of homes) await h.remove();
});
beforeEach(() => resetRateLimits(svc));

async function freshHome() {
  const home = await cliHome();
  homes.push(home);
  return { ...home, env: { ...home.env, SVC_BASE_URL: svc.url! } };
}

async function terminal(args: string[], env: Record<string, string>, scratch: string) {
  const t = await Terminal.start(args, env, scratch);
  terminals.push(t);
  return t;
}

describe('svc login --password', () => {
  it('exits 2 at once when stdin is not a terminal, whatever is piped in', async () => {
    const home = await freshHome();
    const fromNull = await runSvc(['login', '--password'], { env: home.env });
    expect(fromNull.code).toBe(2);
    expect(fromNull.stderr).toMatch(/interactive prompt, and stdin is not a terminal/);
    const piped = await runSvc(['login', '--password'], { env: home.env, stdin: `dana\n${PASSWORD}\n` });
    expect(piped.code).toBe(2);
    await expect(stat(storedLoginFile(home.dir))).rejects.toThrow(/ENOENT/);
  });

  it('prompts at a terminal, stores the login readable by the user only, and logout revokes the key', async () => {
    const home = await freshHome();
    const t = await terminal(['login', '--password'], home.env, home.dir);
    await t.waitFor(/Account \(username or email\)/);
    await t.type('dana');
    await t.press('Enter');
    await t.waitFor(/Password/);
    await t.type(PASSWORD);
    await t.press('Enter');
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    expect(screen).toMatch(/Logged in to .* as dana for Acme \(cell-acme\), developer/);
    expect(screen).not.toContain(PASSWORD);

    const file = storedLoginFile(home.dir);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored).toMatchObject({
      baseUrl: svc.url,
      key: expect.stringMatching(/^svc-dk-/),
      company: { cellId: 'cell-acme' },
      role: 'developer',
    });

    const whoami = await runSvc(['whoami', '--json'], { env: home.env });
    expect(jsonOf(whoami)).toMatchObject({ account: { username: 'dana' }, company: { cellId: 'cell-acme' }, role: 'developer' });
    const keys = jsonOf(await runSvc(['keys', 'list', '--json'], { env: home.env })).keys;
    expect(keys.find((k: { current: boolean }) => k.current)).toMatchObject({ keyId: stored.keyId, prefix: stored.prefix });

    const logout = await runSvc(['logout', '--json'], { env: home.env });
    expect(jsonOf(logout)).toMatchObject({ loggedOut: true, keyRevoked: true, keyId: stored.keyId });
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(stored.key) })).status).toBe(401);
    expect((await runSvc(['whoami'], { env: home.env })).code).toBe(3);
  });

  it('gives up after three wrong entries (exit 1)', async () => {
    const home = await freshHome();
    const t = await terminal(['login', '--password'], home.env, home.dir);
    for (let entry = 1; entry <= 3; entry += 1) {
      await t.waitFor(new RegExp(`(Account[^]*){${entry}}`));
      if (entry === 1) await t.type('gus');
      await t.press('Enter');
      await t.waitFor(new RegExp(`(Password[^]*){${entry}}`));
      await t.type('wrong-password');
      await t.press('Enter');
    }
    expect(await t.exitCode()).toBe(1);
    const screen = await t.screen();
    expect(screen).toMatch(/Try again \(2 left\)/);
    expect(screen).toMatch(/Try again \(1 left\)/);
    expect(screen).toMatch(/Error: invalid_credentials: /);
    await expect(stat(storedLoginFile(home.dir))).rejects.toThrow(/ENOENT/);
  });

  it('asks which company when the account has several, or takes --company', async () => {
    const home = await freshHome();
    const t = await terminal(['login', '--password'], home.env, home.dir);
    await t.waitFor(/Account/);
    await t.type('multi');
    await t.press('Enter');
    await t.waitFor(/Password/);
    await t.type(PASSWORD);
    await t.press('Enter');
    await t.waitFor(/Which one should the key act for\?/);
    await t.waitFor(/Globex \(cell-globex\)/);
    await t.press('Down');
    await t.press('Enter');
    expect(await t.exitCode()).toBe(0);
    const stored = JSON.parse(await readFile(storedLoginFile(home.dir), 'utf8'));
    expect(stored).toMatchObject({ company: { cellId: 'cell-globex' }, role: 'developer' });
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(stored.key) })).status).toBe(200);

    // Logging in again replaces the stored login and revokes its key.
    const chosen = await terminal(['login', '--password', '--company', 'cell-acme'], home.env, home.dir);
    await chosen.waitFor(/Account/);
    await chosen.type('multi');
    await chosen.press('Enter');
    await chosen.waitFor(/Password/);
    await chosen.type(PASSWORD);
    await chosen.press('Enter');
    expect(await chosen.exitCode()).toBe(0);
    expect(JSON.parse(await readFile(storedLoginFile(home.dir), 'utf8'))).toMatchObject({
      company: { cellId: 'cell-acme' },
      role: 'member',
    });
    const replaced = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(stored.key) });
    expect([replaced.status, replaced.body.error.code]).toEqual([401, 'unauthorized']);
  });
});

const ESC = '\u001b';
const GREEN = `${ESC}[32m`;

describe('colour', () => {
  it('is used at a terminal, and never with NO_COLOR', async () => {
    const home = await freshHome();
    const key = (await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'dana', password: PASSWORD } })).body.data
      .key;
    const env = { ...home.env, SVC_API_KEY: key };
    const coloured = await terminal(['init', path.join(home.dir, 'tinted')], env, home.dir);
    expect(await coloured.exitCode()).toBe(0);
    expect(await coloured.screen(true)).toContain(`${GREEN}✓`);
    const plain = await terminal(['init', path.join(home.dir, 'plain')], { ...env, NO_COLOR: '1' }, home.dir);
    expect(await plain.exitCode()).toBe(0);
    const screen = await plain.screen(true);
    expect(screen).toMatch(/✓ Created plain/);
    expect(screen).not.toContain(ESC);
  });
});

describe('svc login (device login)', () => {
  /** `svc login --no-browser` as a child process; resolves the address it shows, then its end. */
  function startDeviceLogin(env: Record<string, string>, browserFlag = ['--no-browser']) {
    const child = spawn(process.execPath, [SVC_BIN, 'login', ...browserFlag, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    const address = new Promise<{ code: string; url: string }>((resolve) => {
      child.stderr.on('data', (c) => {
        stderr += c;
        const code = /one-time code: ([A-Z]{4}-[A-Z]{4})/.exec(stderr);
        const url = /approve this login at (\S+)/.exec(stderr);
        if (code && url) resolve({ code: code[1]!, url: url[1]! });
      });
    });
    const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, stdout, stderr })),
    );
    /** Resolves once the CLI's messages match. */
    const told = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (pattern.test(stderr)) resolve();
          else setTimeout(check, 100);
        };
        check();
      });
    return { address, ended, told };
  }

  async function decideInBrowser(url: string, code: string, button: 'Approve' | 'Deny') {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForURL(/\/signin\?next=/);
      await page.getByLabel('Username or email').fill('dana');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/device\?code=/);
      await expect.poll(() => page.locator('#shown-code').textContent()).toBe(code);
      await page.getByRole('button', { name: button }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(button === 'Approve' ? /Approved for Acme/ : /Denied/);
    } finally {
      await context.close();
    }
  }

  it('shows the code and address, and stores the key once the login is approved in the browser', async () => {
    const home = await freshHome();
    // A browser is available (BROWSER), but --no-browser never tries it.
    const opened = path.join(home.dir, 'opened.txt');
    const login = startDeviceLogin({ ...home.env, BROWSER: await fakeBrowser(home.dir, opened) });
    const { code, url } = await login.address;
    expect(url).toBe(`${svc.url}/device?code=${code}`);
    await decideInBrowser(url, code, 'Approve');
    const run = await login.ended;
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOf(run)).toMatchObject({ account: { username: 'dana' }, company: { cellId: 'cell-acme' }, role: 'developer' });
    expect((await stat(storedLoginFile(home.dir))).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(storedLoginFile(home.dir), 'utf8'));
    expect(run.stdout + run.stderr).not.toContain(stored.key);
    expect(jsonOf(await runSvc(['whoami', '--json'], { env: home.env })).account.username).toBe('dana');
    await expect(stat(opened)).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('opens the approval page in the browser when one is available', async () => {
    const home = await freshHome();
    const opened = path.join(home.dir, 'opened.txt');
    const login = startDeviceLogin({ ...home.env, BROWSER: await fakeBrowser(home.dir, opened) }, []);
    const { code, url } = await login.address;
    await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(`${url}\n`);
    await decideInBrowser(url, code, 'Approve');
    expect((await login.ended).code).toBe(0);
  }, 60_000);

  it('polls more slowly when the service says so, and still gets the key', async () => {
    const home = await freshHome();
    // The poll budget is counted in fixed minute windows of the clock: with less than 40 s of
    // this one left, start in the next, so the window cannot roll over (and forget the used-up
    // budget) between using it up and the CLI's first poll.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 40_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
    // This address's poll budget used up: the CLI's next poll is told to slow down (rate_limited).
    let status = 0;
    while (status !== 429) {
      status = (await svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: 'x'.repeat(43) } })).status;
    }
    const login = startDeviceLogin(home.env);
    const { code, url } = await login.address;
    await login.told(/poll more slowly: now every 10 seconds/);
    await resetRateLimits(svc);
    await decideInBrowser(url, code, 'Approve');
    const run = await login.ended;
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOf(run)).toMatchObject({ account: { username: 'dana' } });
  }, 150_000);

  it('fails (exit 1) when the login is denied', async () => {
    const home = await freshHome();
    const login = startDeviceLogin(home.env);
    const { code, url } = await login.address;
    await decideInBrowser(url, code, 'Deny');
    const run = await login.ended;
    expect(run.code).toBe(1);
    expect(jsonOf(run).error.code).toBe('access_denied');
    await expect(stat(storedLoginFile(home.dir))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
