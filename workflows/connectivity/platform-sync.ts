import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { PlatformSyncInput } from '../contract.ts';

const { preparePlatformTypes, syncPlatformPage, prunePlatformObjects } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
});

type Counts = { rows: number; deleted: number };

/** The entities in the order they are copied (members and apps before the apps' log days). */
const ENTITIES = ['member', 'app', 'appLogDay'] as const;

/**
 * The platform data source's run for one company: its `platform.*` types made or updated, then
 * each entity page by page (each page one activity and one committed transaction, so a worker lost
 * in the middle resumes at the page it was on), then the objects whose source row is gone removed.
 */
export async function platformDataSync(input: PlatformSyncInput): Promise<Record<(typeof ENTITIES)[number], Counts>> {
  await preparePlatformTypes(input.companyId);
  const out = {} as Record<(typeof ENTITIES)[number], Counts>;
  for (const entity of ENTITIES) {
    let rows = 0;
    for (let after: string | null = ''; after !== null; ) {
      const page: { next: string | null; rows: number } = await syncPlatformPage({ companyId: input.companyId, entity, after });
      rows += page.rows;
      after = page.next;
    }
    const { deleted } = await prunePlatformObjects({ companyId: input.companyId, entity });
    out[entity] = { rows, deleted };
  }
  return out;
}
