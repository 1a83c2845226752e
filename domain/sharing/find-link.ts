import type { DbOrTrx } from '../db/index.ts';
import { equalHashes, sha256 } from '../security/index.ts';
import { LINK_TOKEN_PATTERN } from './link-token.ts';
import { findLiveLink } from './repository.ts';

/** The live public link a token opens: looked up by hash, the hash compared in constant time. */
export async function findLinkByToken(db: DbOrTrx, token: string, now: Date) {
  if (!LINK_TOKEN_PATTERN.test(token)) return undefined;
  const hash = sha256(token);
  const link = await findLiveLink(db, hash, now);
  if (!link?.token_hash || !equalHashes(link.token_hash, hash)) return undefined;
  return { id: link.id, appId: link.appId, namespace: link.namespace, slug: link.slug };
}
