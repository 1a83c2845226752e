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

export async function appWorkflowRun(input: AppWorkflowRunInput) {
  const { workflowId, runId: temporalRunId } = workflowInfo();
  // Patched: runs begun before ran these as activities, and replay must meet the same commands.
  const quick = patched('svc-local-steps') ? local : remote;
  const { beginRun, finishRun } = quick;
  const begun = await beginRun({ ...input, workflowId, temporalRunId, at: new Date().toISOString() });
  if (begun.skipped) return { status: 'skipped' as const, reason: begun.reason };
  const { runId } = begun;
  labelBegunRun(runId, begun.version);
  const outputs: Record<string, unknown> = {};
  let failure: string | undefined;
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
    count(outcome.evaluated);
    if (outcome.status === 'failed') failure ??= `${step.id}: ${outcome.error ?? 'failed'}`;
    else outputs[step.id] = outcome.output;
  };

  try {
    for (const group of stepGroups(begun.steps)) {
      await Promise.all(
        group.map(async (lane) => {
          for (const step of lane) await run(step);
        }),
      );
      if (failure !== undefined) break;
    }
  } catch (err) {
    // A step whose retries ran out: the run is recorded as failed, never left running.
    failure ??= err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  }
  const status = failure === undefined ? ('succeeded' as const) : ('failed' as const);
  await finishRun({ runId, status, output: outputs, error: failure, at: new Date().toISOString() });
  return { status, runId, output: outputs, error: failure ?? null };
}

/** A notify cooldown: nothing but its timer; while it runs, the same app and key send nothing. */
export async function notifyCooldown(ms: number): Promise<void> {
  await sleep(ms);
}
