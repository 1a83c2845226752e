import { ParentClosePolicy, patched, proxyActivities, proxyLocalActivities, sleep, startChild, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { type AppWorkflowRunInput, notifyCooldownWorkflowId } from '../contract.ts';
import { childLabels, labelBegunRun } from './labels.ts';

// One run of an app's workflow: each step an activity with a retry policy, outputs passed
// through the workflow. Steps without a lane run one after another; consecutive steps with lanes
// run together, each lane in order, the lanes in parallel.

// Each activity heartbeats every second while it works (a model call, an evaluation off the event
// loop, database writes): 5 s of silence is a dead worker, and the step is retried on another one
// (each is recorded once per run and step, mail once per recipient). Five minutes bounds a hung one.
const RETRY = { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 } as const;
const remote = proxyActivities<Activities>({ startToCloseTimeout: '5 minutes', heartbeatTimeout: '5 seconds', retry: RETRY });
const { renderNotification, recordSuppressed, sendNotifications } = remote;

// The run's record and its `use` and `compute` steps touch only svc's database and take
// milliseconds: as local activities they run in the worker that runs the workflow task, with no
// round trip through the Temporal server each (the history keeps a marker per call; a worker that
// dies in the middle is noticed by the workflow task's timeout and the call runs again, which
// each of them allows). Model steps may wait on a provider for minutes: they stay activities.
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 minutes', retry: RETRY });

/** What a run records of an activity whose retries ran out: the activity's own error. */
const failureOf = (err: unknown) => (err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));

/** startChild's refusal of a running workflow id (its class lives outside the workflow package). */
const isAlreadyStarted = (err: unknown) => err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError';

interface StepOutcome {
  status: string;
  output: unknown;
  error?: string | undefined;
  evaluated?: { steps: number; outputBytes: number } | undefined;
}

/** Steps in groups: a group is one unlaned step, or consecutive laned steps split by lane. */
export function stepGroups(steps: readonly WorkflowStep[]): WorkflowStep[][][] {
  const groups: WorkflowStep[][][] = [];
  let lanes: Map<string, WorkflowStep[]> | undefined;
  for (const step of steps) {
    if (step.lane === undefined) {
      lanes = undefined;
      groups.push([[step]]);
      continue;
    }
    if (!lanes) {
      lanes = new Map();
      groups.push([]);
    }
    const lane = lanes.get(step.lane);
    if (lane) lane.push(step);
    else {
      const fresh = [step];
      lanes.set(step.lane, fresh);
      groups[groups.length - 1]!.push(fresh);
    }
  }
  return groups;
}

/** What a `use` or `compute` step does: reads svc's database and evaluates, in milliseconds. */
const isQuick = (step: WorkflowStep) => step.kind === 'use' || step.kind === 'compute';

export type StepPart = { batch: WorkflowStep[] } | { lanes: WorkflowStep[][] };

/**
 * The groups in the order they run, with each run of consecutive unlaned quick steps as one batch
 * (one local activity: a three-step run is then two workflow activations fewer, each a call into
 * the workflow's V8 context on the worker's one workflow thread).
 */
export function stepParts(groups: readonly WorkflowStep[][][]): StepPart[] {
  const parts: StepPart[] = [];
  for (const lanes of groups) {
    const only = lanes.length === 1 && lanes[0]!.length === 1 ? lanes[0]![0]! : undefined;
    if (!only || !isQuick(only)) parts.push({ lanes });
    else {
      const last = parts.at(-1);
      if (last && 'batch' in last) last.batch.push(only);
      else parts.push({ batch: [only] });
    }
  }
  return parts;
}

export async function appWorkflowRun(input: AppWorkflowRunInput) {
  const { workflowId, runId: temporalRunId } = workflowInfo();
  // Patched: runs begun before ran these as activities, and replay must meet the same commands.
  const quick = patched('svc-local-steps') ? local : remote;
  // Patched likewise: runs begun before ran each step as its own local activity. Now the record,
  // the leading use and compute steps and, when they are all, the close are one local activity, and
  // later runs of such steps one each.
  const batched = quick === local && patched('svc-step-batches');
  const { finishRun } = quick;
  const at = new Date().toISOString();
  const begin = { ...input, workflowId, temporalRunId, at };
  const opened: { begun: Awaited<ReturnType<Activities['beginRun']>>; results: StepOutcome[]; closed: boolean; failure?: string } = batched
    ? await local.beginRunWithSteps(begin).catch(async (err: unknown) => ({
        // Retries ran out in the steps (or the begin): begun again alone (it finds its run), the run closes as failed.
        begun: await local.beginRun(begin),
        results: [],
        closed: false,
        failure: failureOf(err),
      }))
    : { begun: await quick.beginRun(begin), results: [], closed: false };
  const { begun } = opened;
  if (begun.skipped) return { status: 'skipped' as const, reason: begun.reason };
  const { runId } = begun;
  labelBegunRun(runId, begun.version);
  const outputs: Record<string, unknown> = {};
  let failure = opened.failure;
  // What the steps' expressions counted so far: the run's evaluation budget is shared by its steps.
  const evaluated = { steps: 0, outputBytes: 0 };
  const count = (used: StepOutcome['evaluated']) => {
    evaluated.steps += used?.steps ?? 0;
    evaluated.outputBytes += used?.outputBytes ?? 0;
  };

  const notify = async (step: Extract<WorkflowStep, { kind: 'notify' }>, scope: Record<string, unknown>): Promise<StepOutcome> => {
    const rendered = await renderNotification({ runId, step, scope, evaluated: { ...evaluated } });
    count(rendered.evaluated);
    if (!rendered.send) return { status: 'skipped', output: null };
    try {
      // The cooldown is this child's timer; it outlives the run.
      await startChild(notifyCooldown, {
        workflowId: notifyCooldownWorkflowId(rendered.appId, rendered.dedupeHash),
        args: [rendered.cooldownMs],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        ...childLabels('app-notify-cooldown'),
      });
    } catch (err) {
      if (!isAlreadyStarted(err)) throw err;
      await recordSuppressed({ runId, step, dedupeKey: rendered.dedupeKey });
      return { status: 'suppressed', output: null };
    }
    const messages = await sendNotifications({
      runId,
      step,
      subject: rendered.subject,
      body: rendered.body,
      dedupeKey: rendered.dedupeKey,
      at: new Date().toISOString(),
    });
    return { status: 'succeeded', output: { dedupeKey: rendered.dedupeKey, messages } };
  };

  const settle = (step: WorkflowStep, outcome: StepOutcome) => {
    count(outcome.evaluated);
    if (outcome.status === 'failed') failure ??= `${step.id}: ${outcome.error ?? 'failed'}`;
    else outputs[step.id] = outcome.output;
  };
  const run = async (step: WorkflowStep) => {
    if (failure !== undefined) return;
    const scope = { ...begun.scope, steps: { ...outputs } };
    const outcome: StepOutcome =
      step.kind === 'notify'
        ? await notify(step, scope)
        : await (step.kind === 'model' ? remote : quick).runStep({
            runId,
            step,
            scope,
            at: new Date().toISOString(),
            evaluated: { ...evaluated },
          });
    settle(step, outcome);
  };
  // The batch's steps see each other's outputs inside the activity; it stops after a failed one.
  const runBatch = async (steps: WorkflowStep[]) => {
    const scope = { ...begun.scope, steps: { ...outputs } };
    const outcomes = await local.runSteps({ runId, steps, scope, at: new Date().toISOString(), evaluated: { ...evaluated } });
    for (const [i, outcome] of outcomes.entries()) settle(steps[i]!, outcome);
  };

  const result = () => ({
    status: failure === undefined ? ('succeeded' as const) : ('failed' as const),
    runId,
    output: outputs,
    error: failure ?? null,
  });
  for (const [i, outcome] of opened.results.entries()) settle(begun.steps[i]!, outcome);
  if (opened.closed) return result();

  const groups = failure === undefined ? stepGroups(begun.steps.slice(opened.results.length)) : [];
  try {
    for (const part of batched ? stepParts(groups) : groups.map((lanes) => ({ lanes }))) {
      if ('batch' in part) await runBatch(part.batch);
      else
        await Promise.all(
          part.lanes.map(async (lane) => {
            for (const step of lane) await run(step);
          }),
        );
      if (failure !== undefined) break;
    }
  } catch (err) {
    // A step whose retries ran out: the run is recorded as failed, never left running.
    failure ??= failureOf(err);
  }
  const closed = result();
  await finishRun({ runId, status: closed.status, output: outputs, error: failure, at: new Date().toISOString() });
  return closed;
}

/** A notify cooldown: nothing but its timer; while it runs, the same app and key send nothing. */
export async function notifyCooldown(ms: number): Promise<void> {
  await sleep(ms);
}
