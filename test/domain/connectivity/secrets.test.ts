import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../domain/connectivity/repository.ts';
import { SecretBox } from '../../../domain/connectivity/secret-box.ts';
import { testConnectivity } from '../../support/connectivity.ts';

// Connection secrets at rest and in messages: sealed under the configured key with the connection
// bound in, opened by any configured key, and taken out of whatever a source's error says.

const row = (settings: ReturnType<typeof testConnectivity>, id: string, secret: Record<string, string>) => {
  const sealed = settings.secrets.seal(JSON.stringify(secret), id);
  return {
    id,
    company_id: 'org_x',
    name: 'shop',
    kind: 'postgresql' as const,
    settings: {},
    secret: sealed.sealed,
    secret_key_id: sealed.keyId,
    created_at: new Date(),
  };
};

describe('connection secrets', () => {
  it('opens only for the connection it was sealed for, with any configured key', () => {
    const old = { id: 'old', key: Buffer.alloc(32, 1) };
    const current = { id: 'new', key: Buffer.alloc(32, 2) };
    const sealed = new SecretBox([old]).seal('postgres://u:pw@h/db', 'dcn_a');
    const rotated = new SecretBox([current, old]);
    expect(rotated.open(sealed.sealed, 'old', 'dcn_a')).toBe('postgres://u:pw@h/db');
    expect(() => rotated.open(sealed.sealed, 'old', 'dcn_b')).toThrow();
    expect(() => new SecretBox([current]).open(sealed.sealed, 'old', 'dcn_a')).toThrow(/old, which is not configured/);
    expect(rotated.seal('x', 'dcn_a').keyId).toBe('new');
    expect(sealed.sealed.toString('latin1')).not.toContain('pw@h');
  });

  it('takes the connection string and its password (also percent-encoded) out of a source’s message', () => {
    const settings = testConnectivity();
    const r = row(settings, 'dcn_r', { connectionString: 'postgres://reader:p%40ss-word@db.example.com/shop' });
    const message = 'connect to postgres://reader:p%40ss-word@db.example.com/shop failed: password "p@ss-word" rejected';
    expect(redactSecrets(settings, r, message)).toBe('connect to [redacted] failed: password "[redacted]" rejected');
  });
});
