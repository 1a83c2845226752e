import type { z } from 'zod';
import type { Me } from '../../schemas/identity.ts';
import { can, keyNamespaces } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** /me: who a key acts as, and where it may write (nowhere for members). */
export function describeKey(principal: Extract<Principal, { kind: 'key' }>): z.input<typeof Me> {
  return {
    account: principal.account,
    company: { cellId: principal.company.cellId, name: principal.company.name },
    role: principal.role,
    keyPrefix: principal.key.displayPrefix,
    writableNamespaces: keyNamespaces(principal).filter((namespace) => can(principal, 'app.deploy', { namespace })),
  };
}
