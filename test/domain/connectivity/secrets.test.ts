import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../domain/connectivity/repository.ts';
import { testConnectivity } from '../../support/connectivity.ts';

// Connection secrets in messages: taken out of whatever a source's error says (the sealer itself is
// tested in test/domain/security/secret-box.test.ts).

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
  it('takes the connection string and its password (also percent-encoded) out of a source’s message', () => {
    const settings = testConnectivity();
    const r = row(settings, 'dcn_r', { connectionString: 'postgres://reader:p%40ss-word@db.example.com/shop' });
    const message = 'connect to postgres://reader:p%40ss-word@db.example.com/shop failed: password "p@ss-word" rejected';
    expect(redactSecrets(settings, r, message)).toBe('connect to [redacted] failed: password "[redacted]" rejected');
  });
});
