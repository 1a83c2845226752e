import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../../../domain/errors.ts';
import { SqlGate } from '../../../../domain/ontology/sql/sql-gate.ts';

// The process's ontology SQL budget: slots, the per-company cap, the bounded queue and its order.

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as DomainError,
  );

describe('SqlGate', () => {
  it('admits up to the global budget, then queues, then refuses with an accurate message', async () => {
    const gate = new SqlGate({ maxRunning: 2, perCompany: 2, maxWaitMs: 60_000 });
    const a1 = await gate.enter('a');
    await gate.enter('b');
    const queued = [gate.enter('c'), gate.enter('d')];
    expect(gate.load).toEqual({ running: 2, waiting: 2 });
    const err = await refusal(gate.enter('e'));
    expect([err?.code, err?.retryAfterSeconds]).toEqual(['rate_limited', 1]);
    expect(err?.message).toBe(
      'Ontology SQL is busy: 2 queries run on this service (its limit, SVC_SQL_MAX_CONNECTIONS) and 2 wait; retry shortly.',
    );
    a1();
    await queued[0];
    expect(gate.load).toEqual({ running: 2, waiting: 1 });
  });

  it('one company cannot take every slot: its extra queries wait while another company runs', async () => {
    const gate = new SqlGate({ maxRunning: 4, perCompany: 2, maxWaitMs: 60_000 });
    const first = await gate.enter('greedy');
    await gate.enter('greedy');
    let third = false;
    const waiting = gate.enter('greedy').then((release) => {
      third = true;
      return release;
    });
    void gate.enter('greedy');
    const err = await refusal(gate.enter('greedy'));
    expect(err?.message).toBe(
      'This company already has 2 ontology SQL queries running and 2 waiting on this service (at most 2 run at once per company); retry when one finishes.',
    );
    // Two slots stay free for everyone else.
    await gate.enter('other');
    await gate.enter('other');
    expect(gate.load).toEqual({ running: 4, waiting: 2 });
    expect(third).toBe(false);
    first();
    await waiting;
    expect(third).toBe(true);
  });

  it('serves waiters in order, skipping a company at its cap', async () => {
    const gate = new SqlGate({ maxRunning: 2, perCompany: 1, maxWaitMs: 60_000 });
    const a = await gate.enter('a');
    const b = await gate.enter('b');
    const order: string[] = [];
    const admitted = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const a2 = gate.enter('a').then(admitted('a2'));
    const c = gate.enter('c').then(admitted('c'));
    b(); // a is still at its cap: c goes first
    await c;
    expect(order).toEqual(['c']);
    a();
    await a2;
    expect(order).toEqual(['c', 'a2']);
  });

  it('a waiter gives up after maxWaitMs, and leaves the queue when its caller goes away', async () => {
    const gate = new SqlGate({ maxRunning: 1, perCompany: 1, maxWaitMs: 50 });
    await gate.enter('a');
    const late = await refusal(gate.enter('b'));
    expect([late?.code, late?.message]).toEqual(['rate_limited', expect.stringMatching(/stayed busy for 50 ms/)]);
    const patient = new SqlGate({ maxRunning: 1, perCompany: 1, maxWaitMs: 60_000 });
    await patient.enter('a');
    const gone = new AbortController();
    const waiting = refusal(patient.enter('b', gone.signal));
    expect(patient.load.waiting).toBe(1);
    gone.abort(new Error('client went away'));
    expect((await waiting)?.message).toBe('client went away');
    expect(patient.load).toEqual({ running: 1, waiting: 0 });
  });

  it('a release counts once', async () => {
    const gate = new SqlGate({ maxRunning: 1, perCompany: 1, maxWaitMs: 60_000 });
    const release = await gate.enter('a');
    release();
    release();
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});
