import type { Db } from './database.ts';

type Waiting<T, R> = { item: T; resolve(result: R): void; reject(err: unknown): void };

/**
 * Group commit for hot writes: the items that arrive while a write is in flight go together in
 * the next one, so under load a lock held to the commit and the commit's log flush are paid once
 * per batch rather than once per item. Each call settles when its own item is committed, with its
 * result (`write` answers one per item, in order; none for a void write). A batch of several that
 * fails is written again item by item, so one bad item fails only its own call.
 */
export function groupCommit<T, R = void>(
  write: (db: Db, batch: readonly T[]) => Promise<readonly R[] | void>,
): (db: Db, item: T) => Promise<R> {
  type Queue = { pending: Waiting<T, R>[]; writing: boolean };
  const queues = new WeakMap<Db, Queue>();
  async function drain(db: Db, queue: Queue): Promise<void> {
    queue.writing = true;
    while (queue.pending.length > 0) {
      const batch = queue.pending;
      queue.pending = [];
      try {
        const results = await write(
          db,
          batch.map((w) => w.item),
        );
        for (const [i, w] of batch.entries()) w.resolve(results?.[i] as R);
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else for (const w of batch) await write(db, [w.item]).then((results) => w.resolve(results?.[0] as R), w.reject);
      }
    }
    queue.writing = false;
  }
  return (db, item) => {
    const queue = queues.get(db) ?? { pending: [], writing: false };
    queues.set(db, queue);
    return new Promise((resolve, reject) => {
      queue.pending.push({ item, resolve, reject });
      // Starts at once: what arrives meanwhile waits for the next write.
      if (!queue.writing) void drain(db, queue);
    });
  };
}
