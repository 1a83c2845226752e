import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../../domain/outbox/repository.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('claimDue', () => {
  // A start and then its signal, written by one transaction within the same millisecond: the
  // signal must not be delivered first (it would find no workflow and be dropped as done).
  it('hands out intents in the order they were written, to the microsecond, whatever their ids', async () => {
    await sql`
      INSERT INTO outbox (id, topic, key, payload, created_at, next_attempt_at) VALUES
        ('obx_zzz', 'device-login.started', 'dev_1', '{}', '2026-01-01 00:00:00.000100+00', '2026-01-01'),
        ('obx_aaa', 'device-login.closed', 'dev_1', '{}', '2026-01-01 00:00:00.000900+00', '2026-01-01')`.execute(database.db);
    const claimed = await claimDue(database.db, 20, 30);
    expect(claimed.map((c) => c.event.topic)).toEqual(['device-login.started', 'device-login.closed']);
  });
});
