import { assertCanRead } from '../apps/namespace-access.ts';
import { getApp } from '../apps/repository.ts';
import type { DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';

/**
 * The app a workflow call names, for a key of its company (authentication already refused member
 * keys where the route needs a developer) or the app's own ticket (authentication already
 * checked that the ticket names this app).
 */
export async function appOfCaller(db: DbOrTrx, principal: Principal, namespace: string, slug: string) {
  if (principal.kind === 'key') assertCanRead(principal, namespace);
  else if (principal.kind !== 'ticket') throw new DomainError('unauthorized');
  return getApp(db, namespace, slug);
}
