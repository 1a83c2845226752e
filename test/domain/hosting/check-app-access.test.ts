import { describe, expect, it } from 'vitest';
import { type AccessTarget, checkAppAccess, type Visitor } from '../../../domain/hosting/check-app-access.ts';

// The one rule of who may open an app, case by case (spec Authentication 9-11, Rules for B3).

const acme = { companyId: 'org_acme', cellId: 'cell-acme' };
const visitor = (licenses: Visitor['licenses'], platformStaff = false): Visitor => ({ accountId: 'acc_1', platformStaff, licenses });
const member = visitor([{ ...acme, role: 'member' }]);
const developer = visitor([{ ...acme, role: 'developer' }]);
const outsider = visitor([{ companyId: 'org_globex', cellId: 'cell-globex', role: 'developer' }]);
const nobody = visitor([]);

const companyApp = (channel: AccessTarget['channel'], access: AccessTarget['access'] = 'company'): AccessTarget => ({
  namespace: 'cell-acme',
  companyId: 'org_acme',
  channel,
  access,
});
const officialApp = (channel: AccessTarget['channel']): AccessTarget => ({
  namespace: 'public',
  companyId: null,
  channel,
  access: 'company',
});

const outcome = (v: Visitor, t: AccessTarget) => {
  const access = checkAppAccess(v, t);
  return access.allowed ? `allowed as ${access.role}` : `${access.reason}${access.productionInstead ? ' (production instead)' : ''}`;
};

describe('checkAppAccess', () => {
  it('company apps: members on production, developers on both channels, nobody from elsewhere', () => {
    expect(outcome(member, companyApp('production'))).toBe('allowed as member');
    expect(outcome(member, companyApp('test'))).toBe('developers_only (production instead)');
    expect(outcome(developer, companyApp('test'))).toBe('allowed as developer');
    expect(outcome(outsider, companyApp('production'))).toBe('not_member');
    expect(outcome(nobody, companyApp('production'))).toBe('not_member');
  });

  it('restricted apps: only the company’s developers (shares come with the sharing issue)', () => {
    expect(outcome(member, companyApp('production', 'restricted'))).toBe('restricted');
    expect(outcome(developer, companyApp('production', 'restricted'))).toBe('allowed as developer');
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
    const refused = checkAppAccess(outsider, companyApp('production'));
    expect(refused).toMatchObject({
      allowed: false,
      message: expect.stringContaining('cell-acme'),
      remedy: expect.stringContaining('share'),
    });
  });
});
