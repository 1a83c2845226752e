import { sql } from 'kysely';
import { z } from 'zod';
import { defineRoute } from '../../api/http/route.ts';
import type { Db } from '../../domain/db/database.ts';
import { DomainError } from '../../domain/errors.ts';

// Routes that exist only in tests, to exercise the shared HTTP mechanisms
// (validation, dry-run, error mapping, shutdown) before product routes use them.

export async function createNotesTable(db: Db): Promise<void> {
  await sql`CREATE TABLE test_notes (id text PRIMARY KEY, title text NOT NULL, tags text[] NOT NULL)`.execute(db);
}

export function fixtureRoutes(effects: string[], hooks: { failures?: { code: string; times: number } } = {}) {
  let attempts = 0;
  const Note = z.strictObject({
    title: z.string().min(1).max(20),
    tags: z.array(z.string().max(8)).max(3).default([]),
    meta: z.strictObject({ color: z.enum(['red', 'blue']).optional() }).optional(),
  });
  const createNote = defineRoute({
    method: 'post',
    path: '/api/v1/test/notes/{noteId}',
    operationId: 'testCreateNote',
    summary: 'test fixture: create a note',
    tags: ['test'],
    auth: 'none',
    // The configured upload limit, so tests can set it through SVC_MAX_BODY_BYTES.
    bodyLimit: 'upload',
    write: true,
    params: z.object({ noteId: z.string().regex(/^[a-z0-9-]{3,20}$/) }),
    body: Note,
    response: { status: 201, description: 'created', schema: z.object({ id: z.string(), title: z.string() }) },
    async handler({ params, body, db, afterCommit }) {
      attempts++;
      if (hooks.failures && attempts <= hooks.failures.times) {
        throw Object.assign(new Error('simulated'), { code: hooks.failures.code });
      }
      await sql`INSERT INTO test_notes (id, title, tags) VALUES (${params.noteId}, ${body.title}, ${body.tags})`.execute(db);
      afterCommit(async () => void effects.push(`created ${params.noteId}`));
      return { data: { id: params.noteId, title: body.title }, plan: { wouldCreate: params.noteId } };
    },
  });
  const boom = defineRoute({
    method: 'get',
    path: '/api/v1/test/boom',
    operationId: 'testBoom',
    summary: 'test fixture: throws an unexpected error',
    tags: ['test'],
    auth: 'none',
    response: { status: 200, description: 'never', schema: z.object({}) },
    async handler() {
      throw new Error('secret internal detail at /srv/app.ts:12');
    },
  });
  const typed = defineRoute({
    method: 'get',
    path: '/api/v1/test/typed',
    operationId: 'testTyped',
    summary: 'test fixture: throws a DomainError',
    tags: ['test'],
    auth: 'none',
    response: { status: 200, description: 'never', schema: z.object({}) },
    async handler() {
      throw new DomainError('rate_limited', 'slow down', { details: { retryAfterSeconds: 7 }, retryAfterSeconds: 7 });
    },
  });
  const slow = defineRoute({
    method: 'get',
    path: '/api/v1/test/slow',
    operationId: 'testSlow',
    summary: 'test fixture: answers after ?ms milliseconds',
    tags: ['test'],
    auth: 'none',
    query: z.strictObject({ ms: z.coerce.number().int().min(0).max(5000) }),
    response: { status: 200, description: 'done', schema: z.object({ waited: z.number() }) },
    async handler({ query }) {
      await new Promise((r) => setTimeout(r, query.ms));
      return { data: { waited: query.ms } };
    },
  });
  const old = defineRoute({
    method: 'get',
    path: '/api/v1/test/old/{name}',
    operationId: 'testOld',
    summary: 'test fixture: a deprecated route',
    tags: ['test'],
    auth: 'none',
    deprecated: { successor: '/api/v1/test/new/{name}', since: new Date('2026-01-01T00:00:00Z') },
    params: z.object({ name: z.string() }),
    response: { status: 200, description: 'ok', schema: z.object({ name: z.string() }) },
    async handler({ params }) {
      return { data: { name: params.name } };
    },
  });
  const stuck = defineRoute({
    method: 'post',
    path: '/api/v1/test/stuck',
    operationId: 'testStuck',
    summary: 'test fixture: a statement that outlives its timeout',
    tags: ['test'],
    auth: 'none',
    write: true,
    response: { status: 200, description: 'never', schema: z.object({}) },
    async handler({ db }) {
      await sql`SET LOCAL statement_timeout = '50ms'`.execute(db);
      await sql`SELECT pg_sleep(2)`.execute(db);
      return { data: {} };
    },
  });
  const snapshot = defineRoute({
    method: 'get',
    path: '/api/v1/test/snapshot',
    operationId: 'testSnapshot',
    summary: 'test fixture: reports the transaction a snapshot read runs in',
    tags: ['test'],
    auth: 'none',
    snapshot: true,
    response: { status: 200, description: 'ok', schema: z.object({ isolation: z.string(), readOnly: z.string() }) },
    async handler({ db }) {
      const { rows } = await sql<{ isolation: string; read_only: string }>`
        SELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS read_only`.execute(db);
      return { data: { isolation: rows[0]!.isolation, readOnly: rows[0]!.read_only } };
    },
  });
  return [createNote, boom, typed, slow, old, stuck, snapshot];
}
