import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { passwordKey, resetRateLimits } from '../support/identity.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 3: `svc share` lists, adds and revokes (by id alone) the shares of an app. The
// CLI is a child process against the real service on loopback.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
let dir: string;
const svcIn = (...args: string[]) => runSvc(args, { env, cwd: dir });

beforeAll(async () => {
  cli = await startCliService();
  ({ svc, home, env } = cli);
  dir = path.join(home.dir, 'shared-app');
  expect((await runSvc(['init', dir], { env })).code).toBe(0);
  expect((await svcIn('deploy')).code).toBe(0);
}, 120_000);
afterAll(() => cli?.close());
beforeEach(() => resetRateLimits(svc));

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc share', { timeout: 90_000 }, () => {
  it('lists, shares with an account, the company and a public link, and revokes by the share id alone', async () => {
    const none = await svcIn('share');
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('cell-acme/shared-app is shared with no one');

    const user = await svcIn('share', '--user', 'gus', '--expires-in-days', '7', '--json');
    expect(user.code, user.stderr).toBe(0);
    expect(jsonOf(user)).toMatchObject({
      app: { namespace: 'cell-acme', slug: 'shared-app' },
      created: true,
      share: { audience: 'users', role: 'editor', account: { username: 'gus' } },
    });
    expect(jsonOf(user).share.expiresAt).not.toBeNull();
    const company = await svcIn('share', '--company', 'cell-acme');
    expect(company.code, company.stderr).toBe(0);
    expect(company.stdout).toMatch(/✓ cell-acme\/shared-app shared with Acme \(cell-acme\) as editor \(shr_\w+\)/);
    const link = await svcIn('share', '--public');
    expect(link.code, link.stderr).toBe(0);
    const url = new RegExp(`Link: (${svc.addresses.productionBase}/s/[0-9A-Za-z]{33})\\n`).exec(link.stdout)?.[1];
    expect(url, link.stdout).toBeDefined();

    const listed = jsonOf(await svcIn('share', '--json'));
    expect(listed.shares.map((s: { audience: string }) => s.audience)).toEqual(['users', 'company', 'public']);
    expect(JSON.stringify(listed)).not.toContain(url!.split('/s/')[1]);
    const table = await svcIn('share');
    expect(table.stdout).toMatch(/^ID\s+WITH\s+ROLE\s+EXPIRES\s+CREATED\n/);
    expect(table.stdout).toMatch(/shr_\w+\s+gus\s+editor\s+\d{4}-/);

    // From any folder: the id names the share and its app.
    const userShareId: string = jsonOf(user).share.id;
    const revoked = await runSvc(['share', 'revoke', userShareId, '--json'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(jsonOf(revoked)).toMatchObject({ revoked: true, alreadyRevoked: false, share: { id: userShareId } });
    expect(jsonOf(await svcIn('share', '--json')).shares).toHaveLength(2);
    const again = await runSvc(['share', 'revoke', userShareId], { env });
    expect([again.code, again.stdout]).toEqual([0, `Share ${userShareId} (gus) was already revoked.\n`]);
  });

  it('--company <cellId> shares with another company; repeating it changes the expiry; an unknown company exits 1', async () => {
    const shared = await svcIn('share', '--company', 'cell-globex', '--expires-in-days', '3', '--json');
    expect(shared.code, shared.stderr).toBe(0);
    const first = jsonOf(shared);
    expect(first).toMatchObject({
      app: { namespace: 'cell-acme', slug: 'shared-app' },
      created: true,
      share: { audience: 'company', role: 'editor', company: { cellId: 'cell-globex', name: 'Globex' } },
    });
    const again = await svcIn('share', '--company', 'cell-globex');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`✓ cell-acme/shared-app share updated for Globex (cell-globex) as editor (${first.share.id})\n`);
    const listed = jsonOf(await svcIn('share', '--json')).shares.find((s: { id: string }) => s.id === first.share.id);
    expect(listed).toMatchObject({ company: { cellId: 'cell-globex' }, expiresAt: null });
    expect((await svcIn('share')).stdout).toMatch(new RegExp(`${first.share.id}\\s+Globex \\(cell-globex\\)\\s+editor\\s+-`));

    const unknown = await svcIn('share', '--company', 'cell-nowhere', '--json');
    expect([unknown.code, jsonOf(unknown).error.code]).toEqual([1, 'organization_not_found']);
    const revoked = await runSvc(['share', 'revoke', first.share.id, '--json'], { env });
    expect([revoked.code, jsonOf(revoked).share.company.cellId]).toEqual([0, 'cell-globex']);
  });

  it('--dry-run checks a share or a revoke and changes nothing', async () => {
    const before = jsonOf(await svcIn('share', '--json')).shares;
    const dry = await svcIn('share', '--public', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOf(dry)).toMatchObject({ dryRun: true, plan: { created: true, share: { audience: 'public' } } });
    expect(jsonOf(dry).plan.url).toBeUndefined();
    const dryRevoke = await runSvc(['share', 'revoke', before[0].id, '--dry-run'], { env });
    expect([dryRevoke.code, dryRevoke.stdout]).toEqual([0, `Dry run: share ${before[0].id} can be revoked; nothing changed.\n`]);
    expect(jsonOf(await svcIn('share', '--json')).shares).toEqual(before);
  });

  it('exits 2 on bad arguments, before anything is sent', async () => {
    for (const args of [
      ['--user', 'gus', '--public'],
      ['--company', 'globex'],
      ['--public', '--expires-in-days', '3'],
      ['--user', 'gus', '--expires-in-days', '0'],
      ['revoke'],
    ]) {
      const run = await svcIn('share', ...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    const notAnId = await svcIn('share', 'revoke', 'abc', '--json');
    expect([notAnId.code, jsonOf(notAnId).error.code]).toEqual([2, 'invalid_path']);
  });

  it('exits 1 with the API’s code for an unknown share or another company’s, and 3 when not logged in', async () => {
    const unknown = await runSvc(['share', 'revoke', 'shr_0000000000000000', '--json'], { env });
    expect([unknown.code, jsonOf(unknown).error.code]).toEqual([1, 'not_found']);
    const human = await runSvc(['share', 'revoke', 'shr_0000000000000000'], { env });
    expect(human.stderr).toContain('Error: not_found: No share shr_0000000000000000.');

    const theirs = jsonOf(await svcIn('share', '--json')).shares[0].id;
    const outsider = await runSvc(['share', 'revoke', theirs, '--json'], { env: { ...env, SVC_API_KEY: await passwordKey(svc, 'gus') } });
    expect([outsider.code, jsonOf(outsider).error.code]).toEqual([1, 'forbidden']);
    const unknownUser = await svcIn('share', '--user', 'nobody-here', '--json');
    expect([unknownUser.code, jsonOf(unknownUser).error.code]).toEqual([1, 'user_not_found']);

    const { SVC_API_KEY: _, ...loggedOut } = env;
    const list = await runSvc(['share'], { env: loggedOut, cwd: dir });
    expect(list.code).toBe(3);
    expect(list.stderr).toContain('Not logged in');
    expect((await runSvc(['share', 'revoke', theirs], { env: loggedOut })).code).toBe(3);
  });
});
