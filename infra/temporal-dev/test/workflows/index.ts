// Workflows used by the temporal-dev conformance suite (bundled by the SDK's Worker).

import type { ActivityOptions, SearchAttributeType, SearchAttributeUpdatePair } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, defineSearchAttributeKey, TimeoutFailure } from '@temporalio/common';
import * as wf from '@temporalio/workflow';

export interface TestActivities {
  greet(name: string): Promise<string>;
  pause(ms: number): Promise<string>;
}

const { greet } = wf.proxyActivities<TestActivities>({ startToCloseTimeout: '10s' });
const local = wf.proxyLocalActivities<TestActivities>({ startToCloseTimeout: '10s' });

export const addSignal = wf.defineSignal<[string]>('add');
export const itemsQuery = wf.defineQuery<string[]>('items');
export const failingQuery = wf.defineQuery<string>('fails');
export const addUpdate = wf.defineUpdate<number, [string]>('addItem');

export async function greeting(name: string): Promise<string> {
  return await greet(name);
}

export async function localGreeting(name: string): Promise<string> {
  return await local.greet(name);
}

/** A local activity outliving the workflow task timeout: the worker keeps the task alive. */
export async function longLocalActivity(ms: number): Promise<string> {
  return await local.pause(ms);
}

/** Collects "add" signals until `count` arrived; queryable and updatable meanwhile. */
export async function collect(count: number): Promise<string[]> {
  const items: string[] = [];
  wf.setHandler(addSignal, (item) => void items.push(item));
  wf.setHandler(itemsQuery, () => items);
  wf.setHandler(failingQuery, () => {
    throw new Error('query handler exploded');
  });
  wf.setHandler(
    addUpdate,
    (item) => {
      if (item === '') throw ApplicationFailure.nonRetryable('empty item');
      items.push(item);
      return items.length;
    },
    {
      validator: (item) => {
        if (item === 'invalid') throw new Error('rejected by validator');
      },
    },
  );
  await wf.condition(() => items.length >= count);
  return items;
}

export async function sleeper(ms: number): Promise<number> {
  const start = Date.now();
  await wf.sleep(ms);
  return Date.now() - start;
}

/** Sleeps, then returns the "add" signals that arrived meanwhile. */
export async function sleepCollecting(ms: number): Promise<string[]> {
  const items: string[] = [];
  wf.setHandler(addSignal, (item) => void items.push(item));
  await wf.sleep(ms);
  return items;
}

/** Waits until cancelled; reports the cancellation by failing with CancelledFailure. */
export async function waitForever(): Promise<void> {
  await wf.condition(() => false);
}

export async function countdown(n: number, runs = 1): Promise<string> {
  if (n > 0) return await wf.continueAsNew<typeof countdown>(n - 1, runs + 1);
  return `done after ${runs} runs, continued from ${wf.workflowInfo().continuedFromExecutionRunId ? 'a previous run' : 'nothing'}`;
}

export async function failing(message: string): Promise<void> {
  throw ApplicationFailure.nonRetryable(message, 'TestFailure');
}

/** Fails its first attempt; with a workflow retry policy the next run succeeds. */
export async function failFirstAttempt(): Promise<number> {
  const { attempt } = wf.workflowInfo();
  if (attempt === 1) throw ApplicationFailure.retryable('first attempt fails');
  return attempt;
}

export async function parent(name: string): Promise<string> {
  return await wf.executeChild(greeting, { args: [name], workflowId: `${wf.workflowInfo().workflowId}-child` });
}

export async function parentOfFailing(): Promise<string> {
  try {
    await wf.executeChild(failing, { args: ['child broke'], workflowId: `${wf.workflowInfo().workflowId}-child` });
    return 'no error';
  } catch (err) {
    if (err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure) return `child failed: ${err.cause.message}`;
    throw err;
  }
}

/** Starts a long-running child and completes right away; the default close policy terminates it. */
export async function parentLeavingChild(): Promise<string> {
  const child = await wf.startChild(waitForever, { workflowId: `${wf.workflowInfo().workflowId}-child` });
  return child.workflowId;
}

/** Starts a long-running child with the given parent close policy and completes right away. */
export async function parentWithPolicy(policy: 'ABANDON' | 'REQUEST_CANCEL'): Promise<string> {
  const child = await wf.startChild(waitForever, {
    workflowId: `${wf.workflowInfo().workflowId}-child`,
    parentClosePolicy: policy,
  });
  return child.workflowId;
}

/** Cancels its running child and reports what the parent observed. */
export async function parentCancellingChild(): Promise<string> {
  try {
    await wf.CancellationScope.cancellable(async () => {
      const child = wf.executeChild(waitForever, { workflowId: `${wf.workflowInfo().workflowId}-child` });
      await wf.sleep(100);
      wf.CancellationScope.current().cancel();
      await child;
    });
    return 'child finished';
  } catch (err) {
    if (wf.isCancellation(err)) return 'child cancelled';
    throw err;
  }
}

/** Starts a long timer and cancels it. */
export async function cancelTimer(): Promise<string> {
  const scope = new wf.CancellationScope();
  const timer = scope.run(() => wf.sleep(3600_000));
  await wf.sleep(50);
  scope.cancel();
  try {
    await timer;
    return 'timer fired';
  } catch (err) {
    return wf.isCancellation(err) ? 'timer cancelled' : 'unexpected';
  }
}

export async function signalOther(workflowId: string, item: string): Promise<string> {
  try {
    await wf.getExternalWorkflowHandle(workflowId).signal(addSignal, item);
    return 'signaled';
  } catch (err) {
    return `signal failed: ${(err as Error).message}`;
  }
}

export async function cancelOther(workflowId: string): Promise<string> {
  try {
    await wf.getExternalWorkflowHandle(workflowId).cancel();
    return 'cancel requested';
  } catch (err) {
    return `cancel failed: ${(err as Error).message}`;
  }
}

export const CustomKeyword = defineSearchAttributeKey('CustomKeywordField', 'KEYWORD');
export const CustomInt = defineSearchAttributeKey('CustomIntField', 'INT');

/** Upserts memo and search attributes, then waits for one signal. */
export async function upserter(keyword: string): Promise<void> {
  wf.upsertSearchAttributes([
    { key: CustomKeyword, value: keyword },
    { key: CustomInt, value: 42 },
  ]);
  wf.upsertMemo({ stage: 'upserted' });
  await wf.condition(() => false, '1 day').catch(() => undefined);
}

export type ActivityOutcome =
  | { ok: unknown }
  | { failed: string; cause?: string; causeType?: string; retryState?: string; timeoutType?: string };

/** Runs one activity with the given options and reports how it ended. */
export async function runActivity(name: string, options: ActivityOptions, args: unknown[]): Promise<ActivityOutcome> {
  const acts = wf.proxyActivities<Record<string, (...a: unknown[]) => Promise<unknown>>>(options);
  try {
    return { ok: await acts[name]!(...args) };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause;
    return {
      failed: err.message,
      cause: cause?.message,
      causeType: cause instanceof ApplicationFailure ? (cause.type ?? undefined) : cause?.name,
      retryState: err.retryState,
      timeoutType: cause instanceof TimeoutFailure ? cause.timeoutType : undefined,
    };
  }
}

/** Starts an activity, cancels it after `afterMs`, and reports what the workflow observed. */
export async function cancelActivityAfter(afterMs: number): Promise<string> {
  const acts = wf.proxyActivities<{ heartbeatUntilCancelled(): Promise<string> }>({
    startToCloseTimeout: '1 minute',
    // Workers throttle heartbeats to 80% of this, which bounds how fast cancellation is seen.
    heartbeatTimeout: '1s',
    cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: 1 },
  });
  try {
    await wf.CancellationScope.cancellable(async () => {
      const p = acts.heartbeatUntilCancelled();
      await wf.sleep(afterMs);
      wf.CancellationScope.current().cancel();
      await p;
    });
    return 'activity finished';
  } catch (err) {
    if (wf.isCancellation(err)) return 'activity cancelled';
    throw err;
  }
}

/** Races a timer against an activity (time-skipping: time must not skip while the activity runs). */
export async function timerVersusActivity(timerMs: number): Promise<string> {
  const acts = wf.proxyActivities<{ slow(): Promise<string> }>({ startToCloseTimeout: '1 day' });
  return await Promise.race([wf.sleep(timerMs).then(() => 'timer'), acts.slow()]);
}

/** The Java test server's case: an activity that sleeps in virtual time (env.sleep) races a timer. */
export async function timerVersusSleepingActivity(timerMs: number, sleepMs: number): Promise<string> {
  const acts = wf.proxyActivities<{ sleepVirtual(ms: number): Promise<string> }>({ startToCloseTimeout: '30 days' });
  const activity = acts.sleepVirtual(sleepMs);
  const winner = await Promise.race([wf.sleep(timerMs).then(() => 'timer'), activity]);
  // The run ends only after its activity, so the activity's lock never outlives the test.
  await activity;
  return winner;
}

/** For schedules: counts the runs of a schedule through the result each run hands the next. */
export async function countedRun(): Promise<number> {
  return ((wf.workflowInfo().lastResult as number | undefined) ?? 0) + 1;
}

/**
 * Logs its own progress and the "addItem" updates it handles (each answered with the log's
 * length), so a test sees whether an update ran before the workflow's first await. Ends after the
 * update "done".
 */
export async function updateLog(): Promise<string[]> {
  const log: string[] = [];
  wf.setHandler(
    addUpdate,
    (item) => {
      log.push(`update ${item}`);
      return log.length;
    },
    {
      validator: (item) => {
        if (item === 'invalid') throw new Error('rejected by validator');
      },
    },
  );
  log.push('main started');
  await wf.sleep(1);
  log.push('main after its first await');
  await wf.condition(() => log.includes('update done'));
  return log;
}

export const neverEndingUpdate = wf.defineUpdate<void, []>('neverEnding');

/** Accepts "neverEnding" updates whose handlers never return, and waits to be closed from outside. */
export async function withNeverEndingUpdate(): Promise<void> {
  wf.setHandler(neverEndingUpdate, () => wf.condition(() => false));
  await wf.condition(() => false);
}

/** Runs the activity `whichWorker` `times` times, one after the other; returns its answers. */
export async function activitiesInSequence(times: number): Promise<string[]> {
  const { whichWorker } = wf.proxyActivities<{ whichWorker(): Promise<string> }>({ startToCloseTimeout: '10s' });
  const answers: string[] = [];
  for (let i = 0; i < times; i++) answers.push(await whichWorker());
  return answers;
}

export interface InfoSnapshot {
  historyLength: number;
  historySize: number;
  continueAsNewSuggested: boolean;
  suggestedContinueAsNewReasons?: string[];
  priority?: unknown;
  typedSearchAttributes: unknown;
}
export const infoQuery = wf.defineQuery<InfoSnapshot>('info');

function infoSnapshot(): InfoSnapshot {
  const info = wf.workflowInfo();
  return {
    historyLength: info.historyLength,
    historySize: info.historySize,
    continueAsNewSuggested: info.continueAsNewSuggested,
    suggestedContinueAsNewReasons: info.suggestedContinueAsNewReasons,
    priority: info.priority,
    typedSearchAttributes: info.typedSearchAttributes.getAll(),
  };
}

/** Runs an activity, a timer and a child, each with a summary and a priority; then waits. */
export async function annotated(): Promise<void> {
  wf.setHandler(infoQuery, infoSnapshot);
  wf.setCurrentDetails('waiting for **nothing**');
  const { priorityOf } = wf.proxyActivities<{ priorityOf(): Promise<string> }>({
    startToCloseTimeout: '10s',
    summary: 'reports its priority',
    priority: { priorityKey: 1 },
  });
  await priorityOf();
  await wf.sleep(10, { summary: 'short nap' });
  await wf.startChild(waitForever, {
    workflowId: `${wf.workflowInfo().workflowId}-child`,
    staticSummary: 'the child',
    staticDetails: 'waits *forever*',
    priority: { priorityKey: 4 },
  });
  await wf.condition(() => false);
}

/** Runs one activity per priority key, all at once on `taskQueue`, and returns what they returned. */
export async function prioritizedActivities(taskQueue: string, keys: number[]): Promise<string[]> {
  return await Promise.all(
    keys.map((priorityKey) =>
      wf
        .proxyActivities<{ record(name: string): Promise<string> }>({
          taskQueue,
          startToCloseTimeout: '1 minute',
          priority: { priorityKey },
        })
        .record(`key ${priorityKey}`),
    ),
  );
}

/** Applies typed search attribute updates (datetimes as ISO strings), answers `info`, then waits for "add". */
export async function upsertTyped(updates: Array<[name: string, type: SearchAttributeType, value: unknown]>): Promise<void> {
  wf.setHandler(infoQuery, infoSnapshot);
  let proceed = false;
  wf.setHandler(addSignal, () => {
    proceed = true;
  });
  await wf.condition(() => proceed);
  wf.upsertSearchAttributes(
    updates.map(([name, type, value]) => {
      const key = defineSearchAttributeKey(name, type);
      const typed = type === 'DATETIME' && typeof value === 'string' ? new Date(value) : value;
      return { key, value: typed } as SearchAttributeUpdatePair;
    }),
  );
  await wf.condition(() => false);
}

/**
 * Sleeps in a loop until Temporal suggests continuing as new (or `maxLoops`), then reports
 * workflowInfo. `_padding` only makes the start event, and so the history, bigger.
 */
export async function loopUntilSuggested(maxLoops: number, _padding = ''): Promise<InfoSnapshot & { loops: number }> {
  let loops = 0;
  while (!wf.workflowInfo().continueAsNewSuggested && loops < maxLoops) {
    await wf.sleep(1);
    loops++;
  }
  return { ...infoSnapshot(), loops };
}

/** Returns a string of `size` characters, after an activity given `activityInput` characters when that is not 0. */
export async function sized(resultSize: number, activityInputSize = 0): Promise<string> {
  if (activityInputSize > 0) await greet('i'.repeat(activityInputSize));
  return 'o'.repeat(resultSize);
}

/** Sleeps 1 ms `times` times. */
export async function sleepLoop(times: number): Promise<number> {
  for (let i = 0; i < times; i++) await wf.sleep(1);
  return times;
}

export const sizedUpdate = wf.defineUpdate<string, [number]>('sized');

/** Answers "sized" updates with a string of the requested size; waits forever. */
export async function sizedUpdates(): Promise<void> {
  wf.setHandler(sizedUpdate, (size) => 'u'.repeat(size));
  await wf.condition(() => false);
}

/** Fails its workflow task (a plain Error) with a message of `size` characters. */
export async function failsTaskWith(size: number): Promise<void> {
  throw new Error('e'.repeat(size));
}

export const proceedSignal = wf.defineSignal('proceed');
/** versionSteps' answers so far. */
export const seenQuery = wf.defineQuery<string[]>('seen');

/**
 * Asks the activity `whoAmI` which worker runs it, then again after each of `steps` "proceed"
 * signals: the answers show which worker version ran each workflow task (worker versioning).
 */
async function versionSteps(steps: number): Promise<string[]> {
  const { whoAmI } = wf.proxyActivities<{ whoAmI(): Promise<string> }>({ startToCloseTimeout: '10s' });
  let signals = 0;
  wf.setHandler(proceedSignal, () => {
    signals++;
  });
  const seen: string[] = [];
  wf.setHandler(seenQuery, () => seen);
  seen.push(await whoAmI());
  for (let i = 1; i <= steps; i++) {
    await wf.condition(() => signals >= i);
    seen.push(await whoAmI());
  }
  return seen;
}

export async function pinnedSteps(steps: number): Promise<string[]> {
  return versionSteps(steps);
}
wf.setWorkflowOptions({ versioningBehavior: 'PINNED' }, pinnedSteps);

export async function upgradingSteps(steps: number): Promise<string[]> {
  return versionSteps(steps);
}
wf.setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, upgradingSteps);

/** Runs upgradingSteps(0) as a child and returns its answers (a pinned parent's child starts on its version). */
export async function parentOfUpgrading(): Promise<string[]> {
  return wf.executeChild(upgradingSteps, { args: [0] });
}

/** Waits for "proceed", then continues as new, `hops` times; the last run answers whoAmI. */
export async function pinnedHop(hops: number): Promise<string> {
  const { whoAmI } = wf.proxyActivities<{ whoAmI(): Promise<string> }>({ startToCloseTimeout: '10s' });
  if (hops === 0) return whoAmI();
  let proceed = false;
  wf.setHandler(proceedSignal, () => {
    proceed = true;
  });
  await wf.condition(() => proceed);
  return wf.continueAsNew<typeof pinnedHop>(hops - 1);
}
wf.setWorkflowOptions({ versioningBehavior: 'PINNED' }, pinnedHop);

export const noticesQuery = wf.defineQuery<boolean[]>('notices');

/**
 * Notes workflowInfo().targetWorkerDeploymentVersionChanged at each of two "proceed" signals
 * (a pinned run learns that new runs go to another version), then returns the notes.
 */
export async function noticesTarget(): Promise<boolean[]> {
  const notices: boolean[] = [];
  wf.setHandler(noticesQuery, () => notices);
  wf.setHandler(proceedSignal, () => {
    notices.push(wf.workflowInfo().targetWorkerDeploymentVersionChanged);
  });
  await wf.condition(() => notices.length === 2);
  return notices;
}
wf.setWorkflowOptions({ versioningBehavior: 'PINNED' }, noticesTarget);

/** After "proceed", continues as new onto the ramping version (USE_RAMPING_VERSION); the next run answers whoAmI. */
export async function rampHop(last: boolean): Promise<string> {
  const { whoAmI } = wf.proxyActivities<{ whoAmI(): Promise<string> }>({ startToCloseTimeout: '10s' });
  if (last) return whoAmI();
  let proceed = false;
  wf.setHandler(proceedSignal, () => {
    proceed = true;
  });
  await wf.condition(() => proceed);
  return wf.makeContinueAsNewFunc<typeof rampHop>({ initialVersioningBehavior: 'USE_RAMPING_VERSION' })(true);
}
wf.setWorkflowOptions({ versioningBehavior: 'PINNED' }, rampHop);

/** Fails when its activity fails (no retries): once the activity succeeds (a reset run), completes with its result. */
export async function activityOrFail(): Promise<string> {
  const { flakyOnce } = wf.proxyActivities<{ flakyOnce(): Promise<string> }>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } });
  return await flakyOnce();
}

export * from './info.ts';
// Workflows of single suites, in files of their own but in the same bundle.
export * from './updates.ts';
