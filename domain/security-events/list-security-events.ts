import type { SecurityEventView } from '../../schemas/identity.ts';
import type { DbOrTrx, SecurityEventKind } from '../db/index.ts';
import { DomainError } from '../errors.ts';

export interface ListSecurityEventsInput {
  accountId?: string | undefined;
  kind?: SecurityEventKind | undefined;
  limit: number;
  /** The previous page's `next`: continue with older events. */
  before?: string | undefined;
}

// A cursor names the last event shown (time and id), so new events never shift a page.
const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at ?? '');
  if (!id || Number.isNaN(date.getTime())) {
    throw new DomainError('invalid_payload', 'before is not a cursor this service issued.', {
      details: { problems: [{ path: 'query.before', code: 'invalid_cursor', message: 'use the previous page’s next' }] },
    });
  }
  return { at: date, id };
}

/** The security event log, newest first, for operators. */
export async function listSecurityEvents(db: DbOrTrx, input: ListSecurityEventsInput) {
  let query = db
    .selectFrom('security_events')
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(input.limit + 1);
  if (input.accountId) query = query.where('account_id', '=', input.accountId);
  if (input.kind) query = query.where('kind', '=', input.kind);
  if (input.before) {
    const cursor = decodeCursor(input.before);
    query = query.where((eb) => eb.or([eb('at', '<', cursor.at), eb.and([eb('at', '=', cursor.at), eb('id', '<', cursor.id)])]));
  }
  const rows = await query.execute();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const events: SecurityEventView[] = page.map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    kind: r.kind,
    accountId: r.account_id,
    actorId: r.actor_id,
    ip: r.ip,
    details: r.details,
  }));
  return { events, next: rows.length > input.limit && last ? encodeCursor(last.at, last.id) : null };
}
