import type { DbOrTrx, SecurityEventKind } from '../db/index.ts';
import { newId } from '../security/index.ts';

export interface SecurityEvent {
  kind: SecurityEventKind;
  /** The account the event is about; null when the typed login matched none. */
  accountId: string | null;
  /** The operator who acted on someone else's account. */
  actorId?: string | undefined;
  ip?: string | undefined;
  /** Small and free of secrets: never a password, key or token. */
  details?: Record<string, unknown>;
}

/**
 * Appends to the security event log. Inside a request's transaction for changes (so a
 * dry run leaves nothing); on the pool for failures, which must be recorded although
 * the request fails.
 */
export async function recordSecurityEvent(db: DbOrTrx, event: SecurityEvent): Promise<void> {
  await db
    .insertInto('security_events')
    .values({
      id: newId('sev'),
      kind: event.kind,
      account_id: event.accountId,
      actor_id: event.actorId ?? null,
      ip: event.ip ?? null,
      details: JSON.stringify(event.details ?? {}),
    })
    .execute();
}
