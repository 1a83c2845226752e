import { describe, expect, it } from 'vitest';
import { findForbiddenData, redactForbidden } from '../../../domain/provisioning/forbidden-data.ts';

// Spec F: cloud credentials, private keys, tokens and keys, and connection strings are never
// accepted or stored. One smuggled sample of each kind, and the metadata that must pass.

const SMUGGLED: Record<string, string> = {
  'cloud access key id': 'AKIAIOSFODNN7EXAMPLE',
  'cloud secret access key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'temporary access key id': 'ASIAY34FZKBOKMUTVV7A',
  'private key': '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA',
  'OpenSSH private key': '-----BEGIN OPENSSH PRIVATE KEY-----',
  'svc key': 'svc-dk-3x4mpl3K3yV4lu3',
  'svc app ticket': 'svc-at-3x4mpl3T1ck3t',
  'bearer token': 'Bearer abcdefghijklmnop',
  'JSON web token': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
  'model provider token': 'sk-proj-abcdefghijklmnopqrstu',
  'GitHub token': 'ghp_abcdefghijklmnopqrstuvwxyz0123',
  'PostgreSQL connection string': 'postgresql://app@db.internal:5432/prod',
  'URL with a password': 'https://deploy:s3cret@git.example.com/repo',
  'ADO connection string': 'Server=db;Database=prod;User Id=sa;Password=x;',
  'Azure storage key': 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==',
};

const METADATA = [
  'North Trading',
  '北方贸易',
  '/srv/companies/north',
  '/srv/companies/North-Trading-Holdings/Subsidiary-Number-0001',
  'north-main',
  'eu-central-1',
  'i-0abc1234def567890',
  'sg-0abc1234',
  '203.0.113.7',
];

describe('findForbiddenData', () => {
  for (const [what, value] of Object.entries(SMUGGLED)) {
    it(`finds ${what} anywhere in a value, with its path`, () => {
      const problems = findForbiddenData({ cloud: { instanceName: `x ${value} y` }, list: [value] }, 'body');
      expect(problems.map((p) => [p.path, p.code])).toEqual([
        ['body.cloud.instanceName', 'forbidden_data'],
        ['body.list[0]', 'forbidden_data'],
      ]);
    });
  }

  it('finds keys named like credentials, whatever their value', () => {
    const problems = findForbiddenData({ cloud: { secretAccessKey: 'x', 'session-token': 'y', password: '' } }, 'body');
    expect(problems.map((p) => p.path)).toEqual(['body.cloud.secretAccessKey', 'body.cloud["session-token"]', 'body.cloud.password']);
  });

  it('lets metadata through', () => {
    expect(findForbiddenData(METADATA, 'body')).toEqual([]);
  });

  it('refuses strings too long to be metadata, in linear time', () => {
    expect(findForbiddenData('a'.repeat(5000), 'body')[0]?.message).toMatch(/longer than/);
    expect(findForbiddenData(`${'a:'.repeat(2000)}`, 'body')).toEqual([]);
    expect(findForbiddenData(`://${':'.repeat(4000)}`, 'body')).toEqual([]);
    expect(findForbiddenData('x://a:b:c@d', 'body')[0]?.message).toMatch(/connection string/);
  });

  it('withholds an error text that carries a secret', () => {
    expect(redactForbidden('connect ECONNREFUSED 10.0.0.1:443')).toBe('connect ECONNREFUSED 10.0.0.1:443');
    expect(redactForbidden(`failed with ${SMUGGLED['cloud access key id']}`)).not.toContain('AKIA');
  });
});
