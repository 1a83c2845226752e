import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { ObjectTypeRecord } from './repository.ts';
import { queryInvalid } from './where.ts';

// Page tokens: the object type, a digest of the query and the offset, base64url-encoded. Nothing
// in a token is trusted: a token is accepted only by the same caller-visible type and the same
// query that issued it, so a forged one can page through nothing else.

const digest = (type: ObjectTypeRecord, query: unknown) =>
  createHash('sha256').update(type.id).update('\0').update(canonicalJson(query)).digest('base64url').slice(0, 22);

export function issuePageToken(type: ObjectTypeRecord, query: unknown, offset: number): string {
  return Buffer.from(JSON.stringify({ q: digest(type, query), o: offset })).toString('base64url');
}

/** The offset a token carries, or query_invalid InvalidPageToken when it was not issued for this type and query. */
export function readPageToken(type: ObjectTypeRecord, query: unknown, token: string | undefined): number {
  if (token === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const t = parsed as { q?: unknown; o?: unknown } | undefined;
  if (!t || t.q !== digest(type, query) || !Number.isSafeInteger(t.o) || (t.o as number) < 0) {
    throw queryInvalid('InvalidPageToken', 'This page token belongs to another query or object type; start again without it.');
  }
  return t.o as number;
}
