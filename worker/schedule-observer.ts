import { type Client, ScheduleNotFoundError } from '@temporalio/client';
import type { AppScheduleObserver, AppScheduleState } from '../domain/apps/index.ts';
import { appScheduleId } from '../workflows/contract.ts';
import { LOOK_DEADLINE_MS } from './provisioning-observer.ts';

/** The usage view's look at an app's Temporal Schedule: Temporal's own state (paused, next actions), not svc's idea of it. */
export function temporalScheduleObserver(client: Client): AppScheduleObserver {
  return {
    async observe(appId): Promise<AppScheduleState | undefined> {
      try {
        return await client.withDeadline(Date.now() + LOOK_DEADLINE_MS, async () => {
          const described = await client.schedule.getHandle(appScheduleId(appId)).describe();
          return {
            exists: true,
            paused: described.state.paused,
            note: described.state.note || null,
            nextActionTimes: described.info.nextActionTimes,
          };
        });
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return { exists: false };
        // Temporal slow or away: the caller says it could not confirm.
        return undefined;
      }
    },
  };
}
