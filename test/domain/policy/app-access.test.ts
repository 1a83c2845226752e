import { describe, expect, it } from 'vitest';
import {
  type AccessTarget,
  anonymousAppAccess,
  appRoleOf,
  NO_SHARES,
  type ShareGrants,
  type Visitor,
} from '../../../domain/policy/app-access.ts';

// The one rule of who may open an app and with which role, case by case (spec Authentication
// 9-11, Rules for B3, C).

const acme = { companyId: 'org_acme', cellId: 'cell-acme' };
const visitor = (licenses: Visitor['licenses'], platformStaff = false): Visitor => ({
  accountId: 'acc_1',
  platformStaff,
  licenses,
  groups: [],
});
const member = visitor([{ ...acme, role: 'member' }]);
const developer = visitor([{ ...acme, role: 'developer' }]);
const outsider = visitor([{ companyId: 'org_globex', cellId: 'cell-globex', role: 'developer' }]);
const nobody = visitor([]);

const companyApp = (
  channel: AccessTarget['channel'],
  access: AccessTarget['access'] = 'company',
  publicLink: AccessTarget['publicLink'] = 'signin',
): AccessTarget => ({
  namespace: 'cell-acme',
  companyId: 'org_acme',
  channel,
  access,
  publicLink,
});
const officialApp = (channel: AccessTarget['channel']): AccessTarget => ({
  namespace: 'public',
  companyId: null,
  channel,
  access: 'company',
  publicLink: 'signin',
});

const outcome = (v: Visitor, t: AccessTarget, shares: ShareGrants = NO_SHARES) => {
  const access = appRoleOf(v, t, shares);
  return access.allowed
    ? `allowed as ${access.role}${access.viaShare ? ` via ${access.viaShare}` : ''}${access.viaGrant ? ` via grant to ${access.viaGrant.principal}` : ''}`
    : `${access.reason}${access.productionInstead ? ' (production instead)' : access.productionOpen ? ' (production open)' : ''}`;
};
const accountShare: ShareGrants = { ...NO_SHARES, account: { id: 'shr_a' } };
const companyShare: ShareGrants = { ...NO_SHARES, company: { id: 'shr_c' } };
const link: ShareGrants = { ...NO_SHARES, link: { id: 'shr_l' } };

describe('appRoleOf', () => {
  it('company apps: members on production, developers on both channels, nobody from elsewhere', () => {
    expect(outcome(member, companyApp('production'))).toBe('allowed as member');
    expect(outcome(member, companyApp('test'))).toBe('developers_only (production instead)');
    expect(outcome(developer, companyApp('test'))).toBe('allowed as developer');
    expect(outcome(outsider, companyApp('production'))).toBe('not_member');
    expect(outcome(nobody, companyApp('production'))).toBe('not_member');
  });

  it('restricted apps: the company’s developers, and members only through a share (keeping their member role)', () => {
    expect(outcome(member, companyApp('production', 'restricted'))).toBe('restricted');
    expect(outcome(developer, companyApp('production', 'restricted'))).toBe('allowed as developer');
    expect(outcome(member, companyApp('production', 'restricted'), companyShare)).toBe('allowed as member via shr_c');
    expect(outcome(member, companyApp('production', 'restricted'), accountShare)).toBe('allowed as member via shr_a');
    expect(outcome(member, companyApp('production', 'restricted'), link)).toBe('allowed as member via shr_l');
    expect(outcome(member, companyApp('test', 'restricted'), accountShare)).toBe('developers_only (production instead)');
    // Sent to production all the same, but the refusal does not claim production is theirs.
    const opens = (shares: ShareGrants) => {
      const access = appRoleOf(member, companyApp('test', 'restricted'), shares);
      return !access.allowed && access.productionOpen;
    };
    expect([opens(NO_SHARES), opens(accountShare)]).toEqual([false, true]);
  });

  it('people of other companies: editor through a named or company share, viewer through a link, never the test channel', () => {
    expect(outcome(outsider, companyApp('production', 'restricted'), accountShare)).toBe('allowed as editor via shr_a');
    expect(outcome(nobody, companyApp('production'), accountShare)).toBe('allowed as editor via shr_a');
    expect(outcome(outsider, companyApp('production'), link)).toBe('allowed as viewer via shr_l');
    expect(outcome(outsider, companyApp('production', 'restricted'), { ...link, account: { id: 'shr_a' } })).toBe(
      'allowed as editor via shr_a',
    );
    // A company share reaches the visitor only when it is with one of the visitor's companies
    // (findAppGrants): another company's people then open production as editors, never the test channel.
    expect(outcome(outsider, companyApp('production', 'restricted'), companyShare)).toBe('allowed as editor via shr_c');
    expect(outcome(outsider, companyApp('test'), companyShare)).toBe('developers_only (production open)');
    // A share holder on the test address is told they hold the production version, not to ask for a share.
    expect(outcome(outsider, companyApp('test'), accountShare)).toBe('developers_only (production open)');
    expect(outcome(outsider, companyApp('test', 'company', 'members'), link)).toBe('not_member');
    expect(outcome(outsider, companyApp('test'))).toBe('not_member');
  });

  it('generic resource grants on the app (or its applications resource) admit like shares, production only; the ticket records the grant', () => {
    const rid = 'ri.workshop.svc.app.cell-acme.crm';
    const grant = (role: 'viewer' | 'editor' | 'owner', principal = 'acc_1'): ShareGrants => ({
      ...NO_SHARES,
      resource: { rid, principal, role },
    });
    expect(outcome(outsider, companyApp('production', 'restricted'), grant('viewer'))).toBe('allowed as viewer via grant to acc_1');
    expect(outcome(outsider, companyApp('production'), grant('editor', 'everyone'))).toBe('allowed as editor via grant to everyone');
    expect(outcome(outsider, companyApp('production'), grant('owner'))).toBe('allowed as editor via grant to acc_1');
    expect(outcome(outsider, companyApp('test'), grant('owner'))).toBe('developers_only (production open)');
    expect(outcome(member, companyApp('production', 'restricted'), grant('viewer'))).toBe('allowed as member via grant to acc_1');
    // A share admits first: the ticket then ends with the share, not the grant.
    expect(outcome(member, companyApp('production', 'restricted'), { ...grant('viewer'), account: { id: 'shr_a' } })).toBe(
      'allowed as member via shr_a',
    );
    expect(outcome(outsider, companyApp('production', 'company', 'members'), { ...grant('viewer'), link: { id: 'shr_l' } })).toBe(
      'allowed as viewer via grant to acc_1',
    );
    // Company access needs no grant, so none is recorded.
    expect(outcome(member, companyApp('production'), grant('owner'))).toBe('allowed as member');
  });

  it('publicLink members: links admit company people and named shares only', () => {
    expect(outcome(outsider, companyApp('production', 'company', 'members'), link)).toBe('members_only');
    expect(outcome(member, companyApp('production', 'company', 'members'), link)).toBe('allowed as member');
    expect(outcome(outsider, companyApp('production', 'company', 'members'), { ...link, account: { id: 'shr_a' } })).toBe(
      'allowed as editor via shr_a',
    );
  });

  it('official apps: any company’s members; the test channel for developers; no company, no entry', () => {
    expect(outcome(outsider, officialApp('production'))).toBe('allowed as developer');
    expect(outcome(member, officialApp('production'))).toBe('allowed as member');
    expect(outcome(member, officialApp('test'))).toBe('developers_only (production instead)');
    expect(outcome(outsider, officialApp('test'))).toBe('allowed as developer');
    expect(outcome(nobody, officialApp('production'))).toBe('no_company');
    expect(outcome(visitor([], true), officialApp('test'))).toBe('allowed as developer');
  });

  it('says why and what to do when it refuses', () => {
    const refused = appRoleOf(outsider, companyApp('production'));
    expect(refused).toMatchObject({
      allowed: false,
      message: expect.stringContaining('cell-acme'),
      remedy: expect.stringContaining('share'),
    });
  });
});

describe('anonymousAppAccess (the anonymous visitor of an internet-tier app)', () => {
  const semantic = { types: ['sales.Customer', '*'], actions: ['sales.addCustomer'], write: ['sales.Order'] };

  it('reads an internet-tier app on production only: the types its manifest reads by name, never its actions or writes', () => {
    expect(anonymousAppAccess({ channel: 'production', semantic }, true)).toEqual({ allowed: true, readTypes: ['sales.Customer'] });
    expect(anonymousAppAccess({ channel: 'test', semantic }, true)).toEqual({ allowed: false });
  });

  it('refuses any app below the internet tier', () => {
    expect(anonymousAppAccess({ channel: 'production', semantic }, false)).toEqual({ allowed: false });
  });
});
