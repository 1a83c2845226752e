import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, passwordKey, resetRateLimits } from '../support/identity.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 3: `svc members list` and `svc members import <file.csv|file.json> [--dry-run]`
// over the member import API. The CLI is a child process against the real service on loopback.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let op: string;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
const svcRun = (...args: string[]) => runSvc(args, { env, cwd: home.dir });
const file = async (name: string, text: string) => {
  await writeFile(path.join(home.dir, name), text);
  return name;
};
const emails = async () => jsonOf(await svcRun('members', 'list', '--json')).members.map((m: { email: string }) => m.email);

beforeAll(async () => {
  cli = await startCliService();
  ({ svc, home, env } = cli);
  ({ op } = cli.seeded);
}, 120_000);
afterAll(() => cli?.close());
beforeEach(() => resetRateLimits(svc));

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc members', { timeout: 90_000 }, () => {
  it('list shows the company’s people with role and status, and the seats', async () => {
    const json = await svcRun('members', 'list', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(jsonOf(json)).toMatchObject({ seats: { limit: null } });
    expect(jsonOf(json).members).toContainEqual(expect.objectContaining({ username: 'mo', role: 'member', status: 'active' }));
    const human = await svcRun('members', 'list');
    expect(human.stdout).toMatch(/^USERNAME\s+EMAIL\s+NAME\s+ROLE\s+STATUS\s+EXTERNAL ID\n/);
    expect(human.stdout).toMatch(/\ndana\s+dana@example\.com\s+developer/);
    expect(human.stdout).toMatch(/\n\nSeats: \d+ used of unlimited\n$/);
  });

  it('import of a CSV: --dry-run changes nothing, then the people are added once (a repeat keeps them)', async () => {
    const csv = await file('people.csv', 'email,name,externalId\nnew.person@example.com,New Person,hr-1\nmo@example.com,Mo,\n');
    const dry = await svcRun('members', 'import', csv, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOf(dry)).toMatchObject({ dryRun: true, summary: { create: 1, keep: 1 } });
    expect(await emails()).not.toContain('new.person@example.com');

    const run = await svcRun('members', 'import', csv, '--source', 'hr-export');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✓ Imported people\.csv\.\ncreate 1, grant 0, keep 1, keep_developer 0, skip_disabled 0, conflict 0\n/);
    expect(run.stdout).toMatch(/Seats: (\d+) used of unlimited → \d+ after\n/);
    expect(run.stdout).toMatch(/\nROW\s+EMAIL\s+OUTCOME\s+REASON\n0\s+new\.person@example\.com\s+create\n/);
    expect(run.stdout).toContain('Invitations: 1 recorded (no SMTP: nothing sent)');
    const added = jsonOf(await svcRun('members', 'list', '--json')).members.find(
      (m: { email: string }) => m.email === 'new.person@example.com',
    );
    expect(added).toMatchObject({ name: 'New Person', externalId: 'hr-1', status: 'pending', activated: false });

    const json = await file('people.json', JSON.stringify([{ email: 'new.person@example.com', externalId: 'hr-1' }]));
    const again = await svcRun('members', 'import', json, '--json');
    expect(jsonOf(again)).toMatchObject({ dryRun: false, summary: { create: 0, keep: 1 }, invitations: [] });
  });

  it('exits 2 for a file it cannot read or the service refuses as a list, 1 when the seats do not suffice', async () => {
    const cases: [string, string][] = [
      ['people.txt', await file('people.txt', 'email\na@example.com\n')],
      ['missing file', 'nowhere.csv'],
      ['broken JSON', await file('broken.json', '[{"email": ')],
      ['CSV without an email column', await file('noemail.csv', 'name\nSomeone\n')],
      ['JSON of the wrong shape', await file('shape.json', JSON.stringify({ people: [] }))],
    ];
    for (const [what, name] of cases) {
      const run = await svcRun('members', 'import', name, '--json');
      expect([what, run.code], run.stdout + run.stderr).toEqual([what, 2]);
    }

    expect((await svc.call('PUT', '/api/v1/admin/organizations/cell-acme/seats', { body: { limit: 1 }, headers: bearer(op) })).status).toBe(
      200,
    );
    try {
      const full = await svcRun('members', 'import', await file('more.csv', 'email\nanother.one@example.com\n'), '--json');
      expect([full.code, jsonOf(full).error.code, jsonOf(full).error.details.reason]).toEqual([1, 'conflict', 'seats_insufficient']);
    } finally {
      await svc.call('PUT', '/api/v1/admin/organizations/cell-acme/seats', { body: { limit: null }, headers: bearer(op) });
    }
  });

  it('exits 1 for a member’s key (developers only) and 3 without a credential', async () => {
    const member = await runSvc(['members', 'list', '--json'], { env: { ...env, SVC_API_KEY: await passwordKey(svc, 'mo') } });
    expect([member.code, jsonOf(member).error.code]).toEqual([1, 'forbidden']);
    const bare = { ...home.env, SVC_BASE_URL: svc.url! };
    expect((await runSvc(['members', 'list'], { env: bare })).code).toBe(3);
    expect((await runSvc(['members', 'import', 'people.csv'], { env: bare, cwd: home.dir })).code).toBe(3);
  });
});
