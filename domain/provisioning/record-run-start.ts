import type { Db } from '../db/index.ts';
import { setRequestRun } from './repository.ts';

/** The relay's report: Temporal started or joined run `runId` for the request. */
export async function recordRunStart(db: Db, requestId: string, runId: string): Promise<void> {
  await setRequestRun(db, requestId, runId);
}
