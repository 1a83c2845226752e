// Workflows of test/updates.test.ts: where and when updates reach workflow code.
import * as wf from '@temporalio/workflow';

export const touchUpdate = wf.defineUpdate<void, []>('touch');

/** Returns at once; an update delivered with its first workflow task still changes the result. */
export async function returnsAtOnce(): Promise<string> {
  let state = 'untouched';
  wf.setHandler(touchUpdate, () => {
    state = 'touched';
  });
  return state;
}

export const markUpdate = wf.defineUpdate<void, []>('mark');
export const markedQuery = wf.defineQuery<boolean>('marked');
export const releaseSignal = wf.defineSignal('release');

/**
 * Notes whether the "mark" update's handler ran right when it was set (so in the same activation
 * as the start); a replaying worker must come to the same answer.
 */
export async function marksEarly(): Promise<boolean> {
  let marked = false;
  wf.setHandler(markUpdate, () => {
    marked = true;
  });
  const markedWhenSet = marked;
  wf.setHandler(markedQuery, () => marked);
  let released = false;
  wf.setHandler(releaseSignal, () => {
    released = true;
  });
  await wf.condition(() => released);
  return markedWhenSet;
}

export const bumpSignal = wf.defineSignal('bump');
export const bumpUpdate = wf.defineUpdate<number, []>('bump');

/** Counts "bump" signals and updates; returns the count once it has one. */
export async function bumps(): Promise<number> {
  let count = 0;
  wf.setHandler(bumpSignal, () => {
    count++;
  });
  wf.setHandler(bumpUpdate, () => ++count);
  await wf.condition(() => count > 0);
  return count;
}

export const pingSignal = wf.defineSignal('ping');
export const pingUpdate = wf.defineUpdate<void, []>('ping');

/**
 * Starts a timer and an activity, then waits for the first of them, a signal or an update. When
 * all four arrive in one workflow task, each must have been seen before the wait ends.
 */
export async function firstOfFour(activityQueue: string): Promise<boolean[]> {
  const seen = { signal: false, update: false, timer: false, activity: false };
  wf.setHandler(pingSignal, () => {
    seen.signal = true;
  });
  wf.setHandler(pingUpdate, () => {
    seen.update = true;
  });
  void wf.sleep(50).then(() => {
    seen.timer = true;
  });
  void wf.scheduleActivity('neverRun', [], { activityId: 'never-run', taskQueue: activityQueue, scheduleToCloseTimeout: '1m' }).then(() => {
    seen.activity = true;
  });
  await wf.condition(() => seen.signal || seen.update || seen.timer || seen.activity);
  return [seen.signal, seen.update, seen.timer, seen.activity];
}

export const countUpdate = wf.defineUpdate<boolean, [number]>('count');

/** Accepts "count" updates (negative ones rejected by the validator), answering whether continue-as-new is suggested. */
export async function counting(): Promise<void> {
  wf.setHandler(countUpdate, () => wf.workflowInfo().continueAsNewSuggested, {
    validator: (n) => {
      if (n < 0) throw new Error('negative');
    },
  });
  await wf.condition(() => false);
}

export const slowUpdate = wf.defineUpdate<string, []>('slow');
export type Ending = 'return' | 'fail' | 'continue-as-new' | 'cancelled' | 'next-run';

/**
 * Its "slow" update handler waits until the workflow may end (`wait`) or never; the workflow ends
 * as `ending` says once the handler has started (a cancelled one when its cancellation arrives;
 * `next-run`, the run after a continue-as-new, at once).
 */
export async function endsWithHandler(ending: Ending, wait: boolean): Promise<string> {
  if (ending === 'next-run') return 'next run';
  let started = false;
  let mayReturn = false;
  wf.setHandler(slowUpdate, async () => {
    started = true;
    await wf.CancellationScope.nonCancellable(() => wf.condition(() => mayReturn));
    return 'slow done';
  });
  if (ending === 'cancelled') {
    await wf.condition(() => false);
  }
  await wf.condition(() => started);
  if (wait) {
    mayReturn = true;
    await wf.condition(wf.allHandlersFinished);
  }
  if (ending === 'fail') throw wf.ApplicationFailure.nonRetryable('ended by failure');
  if (ending === 'continue-as-new') await wf.continueAsNew<typeof endsWithHandler>('next-run', false);
  return 'returned';
}
