import { loadVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** The SDKs an app ticket's manifest registers; null for other credentials. */
async function appSdkOf(db: DbOrTrx, principal: Principal): Promise<readonly string[] | null> {
  return principal.kind === 'ticket' ? (await loadVersion(db, principal.ticket.versionId)).manifest.sdk : null;
}

/** The caller may view the namespace's world-model assets (world-asset.read), or the policy's refusal. */
export async function authorizeAssetRead(db: DbOrTrx, principal: Principal, namespace: string): Promise<void> {
  authorize(principal, 'world-asset.read', { namespace, appSdk: await appSdkOf(db, principal) });
}

/** The caller may ask for a generation charged to its app (world.generate), or the policy's refusal. */
export async function authorizeGenerate(db: DbOrTrx, principal: Principal, namespace: string): Promise<void> {
  authorize(principal, 'world.generate', { namespace, appSdk: await appSdkOf(db, principal) });
}
