import type { DbOrTrx } from '../db/index.ts';
import { authorizeKey, PUBLIC_NAMESPACE } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { type Capability, capabilityCatalog } from './capabilities.ts';

/** GET /api/v1/developer/capabilities/{namespace}: what a workflow `use` step of this namespace may call. */
export async function listCapabilities(db: DbOrTrx, principal: Principal, namespace: string): Promise<Capability[]> {
  authorizeKey(principal, 'company.read', { namespace });
  return capabilityCatalog(db, namespace === PUBLIC_NAMESPACE ? null : principal.company.id);
}
