import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { namespaceContents } from './repository.ts';

/**
 * Which of these file contents (SHA-256) the namespace's versions already hold, so that an
 * upload may send them as `storedFiles` instead of their bytes. Asked by a developer who may
 * upload there: the answer is about the caller's own company only.
 */
export async function findStoredFiles(db: DbOrTrx, principal: Principal, namespace: string, hashes: readonly string[]): Promise<string[]> {
  authorize(principal, 'app.deploy', { namespace: namespace });
  const distinct = [...new Set(hashes)];
  const stored = await namespaceContents(db, namespace, distinct);
  return distinct.filter((h) => stored.has(h));
}
