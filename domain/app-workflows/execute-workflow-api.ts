import { createHash } from 'node:crypto';
import type { RunView } from '../../schemas/app-workflows.ts';
import { issuesToProblems, reportedProblems } from '../../schemas/problems.ts';
import { appApiRunWorkflowId } from '../../schemas/workflow-keys.ts';
import { channelWorkflow } from '../apps/index.ts';
import type { Channel, Db, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertTriggerMayStart } from '../usage/index.ts';
import { appOfCaller } from './app-of-caller.ts';
import { runView, selectRuns } from './list-runs.ts';
import { WORKFLOW_API_NAME } from './list-workflow-apis.ts';
import { insertRun } from './runs.ts';
import { workflowInputSchema } from './workflow-input.ts';

export interface ExecuteInput {
  namespace: string;
  slug: string;
  name: string;
  input: Record<string, unknown>;
  preview: boolean;
  channel?: Channel | undefined;
  /** The Idempotency-Key header: the same key answers the same run, never a second one. */
  idempotencyKey?: string | undefined;
}

export type ExecuteOutcome =
  | { kind: 'replayed'; run: RunView }
  | { kind: 'started'; runId: string }
  | { kind: 'preview'; steps: { id: string; kind: string; lane: string | null }[] };

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * Runs the app's workflow as its API `run`: the input is validated against `workflow.input`,
 * the run recorded and its start written to the outbox in the caller's transaction (so a dry run
 * validates only and starts nothing). Whoever the policy lets run it (app.workflow.run: anyone who
 * may open the app and write, never a viewer; the test channel for developers) calls the production
 * channel, developers also test; a ticket calls its own channel. `preview` answers the steps it
 * would run. A repeated Idempotency-Key answers the first run with that key.
 */
export async function executeWorkflowApi(db: DbOrTrx, clock: Clock, principal: Principal, input: ExecuteInput): Promise<ExecuteOutcome> {
  const { app, channel } = await appOfCaller({ db, clock }, principal, input, 'app.workflow.run');
  const current = input.name === WORKFLOW_API_NAME ? await channelWorkflow(db, app.id, channel) : undefined;
  if (!current) {
    throw new DomainError('not_found', `${input.namespace}/${input.slug} has no API named ${input.name} in ${channel}.`, {
      details: { name: input.name, channel },
    });
  }
  const parsed = workflowInputSchema(current.workflow).safeParse(input.input);
  if (!parsed.success) {
    throw new DomainError('invalid_payload', 'The input does not match the API’s input schema.', {
      details: reportedProblems(issuesToProblems(parsed.error.issues, 'input')),
    });
  }
  if (input.preview) {
    return { kind: 'preview', steps: current.workflow.steps.map((s) => ({ id: s.id, kind: s.kind, lane: s.lane ?? null })) };
  }

  const key = input.idempotencyKey === undefined ? null : hashKey(input.idempotencyKey);
  if (key !== null) {
    const earlier = await selectRuns(db).where('r.app_id', '=', app.id).where('r.idempotency_key', '=', key).executeTakeFirst();
    if (earlier) return { kind: 'replayed', run: runView(earlier) };
  }
  await assertTriggerMayStart(db, clock, app.id);
  const runId = newId('wfr');
  await insertRun(db, {
    id: runId,
    appId: app.id,
    versionId: current.versionId,
    channel,
    trigger: 'api',
    workflowId: appApiRunWorkflowId(runId),
    input: parsed.data,
    idempotencyKey: key,
    startedAt: clock.now(),
  });
  await enqueue(db, { topic: 'app-workflow.run', key: runId, payload: { appId: app.id, runId } });
  return { kind: 'started', runId };
}

/** After the commit: waits (up to `deadlineMs`) for the run to finish and answers its state. */
/**
 * The workflow API called outside an HTTP write (an MCP tool call): the run recorded and its
 * start enqueued in a transaction of its own, then its result awaited up to `waitMs` after the
 * commit (a run still going answers as running). `preview` answers the steps only.
 */
export async function executeWorkflowApiNow(
  deps: { db: Db; clock: Clock },
  principal: Principal,
  input: ExecuteInput,
  waitMs: number,
): Promise<{ run: RunView } | { plan: { steps: { id: string; kind: string; lane: string | null }[] } }> {
  const outcome = await deps.db.transaction().execute((trx) => executeWorkflowApi(trx, deps.clock, principal, input));
  if (outcome.kind === 'preview') return { plan: { steps: outcome.steps } };
  if (outcome.kind === 'replayed') return { run: outcome.run };
  return { run: await awaitRunResult(deps.db, outcome.runId, waitMs) };
}

export async function awaitRunResult(db: DbOrTrx, runId: string, deadlineMs: number): Promise<RunView> {
  const until = Date.now() + deadlineMs;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    const row = await selectRuns(db).where('r.id', '=', runId).executeTakeFirstOrThrow();
    if (row.status !== 'running' || Date.now() + wait > until) return runView(row);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
