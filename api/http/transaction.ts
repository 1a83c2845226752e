import type { Db, DbOrTrx } from '../../domain/db/index.ts';
import { isRetryableDbError } from './db-errors.ts';

const MAX_ATTEMPTS = 3;

export interface WriteScope {
  trx: DbOrTrx;
  afterCommit(effect: () => Promise<void>): void;
}

/**
 * Runs a write use case in one transaction. Dry-run is the same run rolled
 * back, with its deferred side effects dropped, so validation and planning are
 * exactly those of the real request and nothing changes. Serialization
 * failures and deadlocks rerun the whole use case, which is why side effects
 * must go through `afterCommit`.
 */
export async function runWrite<T>(db: Db, dryRun: boolean, useCase: (scope: WriteScope) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const effects: (() => Promise<void>)[] = [];
    const trx = await db.startTransaction().execute();
    let result: T;
    try {
      result = await useCase({ trx, afterCommit: (e) => void effects.push(e) });
      if (dryRun) await trx.rollback().execute();
      else await trx.commit().execute();
    } catch (err) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      if (attempt < MAX_ATTEMPTS && isRetryableDbError(err)) continue;
      throw err;
    }
    if (!dryRun) for (const effect of effects) await effect();
    return result;
  }
}
