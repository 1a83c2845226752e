import type { Db } from './database.ts';

type Waiting<T, R> = { item: T; resolve(result: R): void; reject(err: unknown): void };

export interface GroupCommitOptions<T> {
  /** The largest batch, in `weight` units (default: no bound); an item heavier than that goes alone. */
  maxWeight?: number;
  /** An item's share of `maxWeight` (default 1). */
  weight?: (item: T) => number;
  /**
   * Let the calls of the rest of this event-loop turn join the first write too, instead of
   * starting it at once: for producers that call in bursts within one turn.
   */
  gatherTurn?: boolean;
}

/**
 * Group commit for hot writes: the items that arrive while a write is in flight go together in
 * the next one, so under load a lock held to the commit and the commit's log flush are paid once
 * per batch rather than once per item. Each call settles when its own item is committed, with its
 * result (`write` answers one per item, in order; none for a void write). A batch of several that
 * fails is written again item by item, so one bad item fails only its own call. One queue per
 * database handle.
 */
export function groupCommit<T, R = void>(
  write: (db: Db, batch: readonly T[]) => Promise<readonly R[] | void>,
  opts: GroupCommitOptions<T> = {},
): (db: Db, item: T) => Promise<R> {
  type Queue = { pending: Waiting<T, R>[]; writing: boolean };
  const queues = new WeakMap<Db, Queue>();
  const { maxWeight = Number.POSITIVE_INFINITY, weight = () => 1 } = opts;
  /** The oldest items that fit in one batch (at least one). */
  const nextBatch = (pending: Waiting<T, R>[]): Waiting<T, R>[] => {
    if (maxWeight === Number.POSITIVE_INFINITY) return pending.splice(0);
    let size = weight(pending[0]!.item);
    let n = 1;
    while (n < pending.length && size + weight(pending[n]!.item) <= maxWeight) size += weight(pending[n++]!.item);
    return pending.splice(0, n);
  };
  async function drain(db: Db, queue: Queue): Promise<void> {
    queue.writing = true;
    if (opts.gatherTurn) await new Promise(setImmediate);
    while (queue.pending.length > 0) {
      const batch = nextBatch(queue.pending);
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
      // Starts at once (or at the end of this turn): what arrives meanwhile waits for the next write.
      if (!queue.writing) void drain(db, queue);
    });
  };
}
