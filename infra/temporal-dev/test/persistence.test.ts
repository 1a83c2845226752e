// Durable state (--db-filename): the server process is killed with SIGKILL and started again on the
// same file. temporal-dev only: the downloaded servers are not run here.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Context } from '@temporalio/activity';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTemporalDevServer, temporalDevExecutable } from '../index.ts';
import { toJson } from '../persistence/persistence.ts';
import { eventTypes, eventually, grpcError, sharedBundle } from './helpers.ts';
import {
  addSignal,
  addUpdate,
  CustomInt,
  CustomKeyword,
  cancelTimer,
  collect,
  countdown,
  countedRun,
  failFirstAttempt,
  greeting,
  itemsQuery,
  parent,
  pinnedSteps,
  proceedSignal,
  runActivity,
  sleepCollecting,
  upserter,
  upsertTyped,
  waitForever,
} from './workflows/index.ts';

interface ServerProcess {
  child: ChildProcess;
  address: string;
  port: number;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Runs bin/temporal-dev on `dbFilename`; resolves once it listens (rejects if it exits first). */
function startServer(dbFilename: string, port = 0): Promise<ServerProcess> {
  const child = spawn(temporalDevExecutable, ['server', 'start-dev', '--port', String(port), '--headless', '--db-filename', dbFilename], {
    env: { ...process.env, TEMPORAL_DEV_NODE: process.execPath },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      err += chunk;
      const address = /listening on (\S+)/.exec(err)?.[1];
      if (address) resolve({ child, address, port: Number(address.split(':').at(-1)), exited, stderr: () => err });
    });
    void exited.then((code) => reject(new Error(`temporal-dev exited with ${code}: ${err}`)));
  });
}

async function kill(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

let dir: string;
const running: ServerProcess[] = [];
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'temporal-dev-persist-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const server of running.splice(0)) if (server.child.exitCode === null) await kill(server);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function server(dbFilename: string, port?: number): Promise<ServerProcess> {
  const s = await startServer(dbFilename, port);
  running.push(s);
  return s;
}

/** A client that does not retry, so calls to a killed server fail at once. */
async function rawClient(address: string): Promise<Client> {
  const connection = await Connection.connect({ address, interceptors: [] });
  closers.push(() => connection.close());
  return new Client({ connection });
}

/** Runs a worker until the test ends; returns its connection (a client on it can start workflows eagerly). */
async function startWorker(
  address: string,
  taskQueue: string,
  activities: object = {},
  options: Partial<WorkerOptions> = {},
): Promise<NativeConnection> {
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection, taskQueue, workflowBundle: await sharedBundle(), activities, ...options });
  const run = worker.run();
  closers.push(async () => {
    worker.shutdown();
    await run;
    await connection.close();
  });
  return connection;
}

const { IndexedValueType } = temporal.api.enums.v1;
const dbFile = () => path.join(dir, `${randomUUID()}.sqlite`);
const payloads = (...values: unknown[]) => ({ payloads: values.map((v) => defaultPayloadConverter.toPayload(v)) });

describe('a restart on the same state file', () => {
  it('keeps a sleeping and a closed workflow as they were; the timer fires on time and signals are not lost', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const first = await server(file);
    await startWorker(first.address, taskQueue, { greet: async (name: string) => `Hello, ${name}!` });
    const client = new Client({ connection: await Connection.connect({ address: first.address }) });
    closers.push(() => client.connection.close());

    const closed = await client.workflow.start(greeting, { taskQueue, workflowId: `closed-${randomUUID()}`, args: ['before'] });
    expect(await closed.result()).toBe('Hello, before!');
    const sleeping = await client.workflow.start(sleepCollecting, { taskQueue, workflowId: `sleeping-${randomUUID()}`, args: [4000] });
    await sleeping.signal(addSignal, 'sent before the kill');
    // Idle: the worker has seen the signal, so nothing is in flight when the server dies.
    await eventually(async () => {
      const types = eventTypes((await sleeping.fetchHistory()).events);
      return (
        types.includes('WORKFLOW_EXECUTION_SIGNALED') && types.at(-1) === 'WORKFLOW_TASK_COMPLETED' && types.at(-2) !== 'TIMER_STARTED'
      );
    });

    const svc = client.workflowService;
    const observe = async () => ({
      describe: await Promise.all(
        [closed, sleeping].map((h) => svc.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: h.workflowId } })),
      ),
      history: await Promise.all(
        [closed, sleeping].map((h) => svc.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: h.workflowId } })),
      ),
      list: await svc.listWorkflowExecutions({ namespace: 'default', query: `TaskQueue = "${taskQueue}"` }),
      count: await svc.countWorkflowExecutions({ namespace: 'default', query: `TaskQueue = "${taskQueue}" GROUP BY ExecutionStatus` }),
    });
    const before = await observe();
    expect(before.list.executions).toHaveLength(2);

    await kill(first);
    // Same port: the client and the worker reconnect by themselves, as to a restarted Temporal.
    await server(file, first.port);
    expect(await observe()).toEqual(before);

    expect(await sleeping.result()).toEqual(['sent before the kill']);
    const events = (await sleeping.fetchHistory()).events!;
    const at = (type: string) => {
      const event = events.find((e) => eventTypes([e])[0] === type)!;
      return Number(event.eventTime!.seconds) * 1000 + Math.floor(event.eventTime!.nanos! / 1e6);
    };
    const late = at('TIMER_FIRED') - at('TIMER_STARTED') - 4000;
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1000);
  }, 60_000);

  it('keeps a schedule: it fires on after the restart, its actions and the runs it started intact', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const first = await server(file);
    await startWorker(first.address, taskQueue);
    const client = new Client({ connection: await Connection.connect({ address: first.address }) });
    closers.push(() => client.connection.close());
    const scheduleId = `every-second-${randomUUID()}`;
    const handle = await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1s' }] },
      action: { type: 'startWorkflow', workflowType: countedRun, taskQueue, workflowId: `counted-${scheduleId}` },
      memo: { owner: 'persistence test' },
    });
    await eventually(async () => (await handle.describe()).info.numActionsTaken >= 2);
    await kill(first);

    await server(file, first.port);
    const after = await handle.describe();
    expect(after.memo).toEqual({ owner: 'persistence test' });
    const taken = after.info.numActionsTaken;
    expect(taken).toBeGreaterThanOrEqual(2);
    // It keeps firing on the restarted server, and each run still sees the previous run's result.
    await eventually(async () => (await handle.describe()).info.numActionsTaken >= taken + 2);
    const recent = (await handle.describe()).info.recentActions.at(-2)!;
    const run = client.workflow.getHandle(recent.action.workflow.workflowId);
    expect(await run.result()).toBeGreaterThanOrEqual(taken + 1);
    await handle.delete();
  }, 60_000);

  it('keeps what describe shows: summary and details, priority, typed search attributes and their registration, sizes and counts', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const first = await server(file);
    await startWorker(first.address, taskQueue);
    const client = new Client({ connection: await Connection.connect({ address: first.address }) });
    closers.push(() => client.connection.close());
    const tier = defineSearchAttributeKey(`Tier${randomUUID().slice(0, 8)}`, 'KEYWORD_LIST');
    await client.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: { [tier.name]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST },
    });
    const handle = await client.workflow.start(upsertTyped, {
      taskQueue,
      workflowId: `described-${randomUUID()}`,
      args: [[[tier.name, 'KEYWORD_LIST', ['gold', 'silver']]]],
      typedSearchAttributes: [{ key: tier, value: ['bronze'] }],
      staticSummary: 'kept summary',
      staticDetails: 'kept details',
      priority: { priorityKey: 2, fairnessKey: 'kept' },
    });
    await handle.signal(addSignal, 'upsert');
    await eventually(async () => (await handle.describe()).typedSearchAttributes.get(tier)?.length === 2);
    const observe = async () => {
      const d = await handle.describe();
      const info = d.raw.workflowExecutionInfo!;
      return {
        summary: await d.staticSummary(),
        details: await d.staticDetails(),
        priority: d.priority,
        tier: d.typedSearchAttributes.get(tier),
        historySize: d.historySize,
        historyLength: d.historyLength,
        stateTransitionCount: Number(info.stateTransitionCount),
      };
    };
    const before = await observe();
    expect(before).toMatchObject({ summary: 'kept summary', tier: ['gold', 'silver'], priority: { priorityKey: 2, fairnessKey: 'kept' } });
    expect(before.stateTransitionCount).toBeGreaterThan(0);
    await kill(first);

    const second = await server(file);
    const restarted = new Client({ connection: await Connection.connect({ address: second.address }) });
    closers.push(() => restarted.connection.close());
    const again = restarted.workflow.getHandle(handle.workflowId);
    const d = await again.describe();
    expect({
      summary: await d.staticSummary(),
      details: await d.staticDetails(),
      priority: d.priority,
      tier: d.typedSearchAttributes.get(tier),
      historySize: d.historySize,
      historyLength: d.historyLength,
      stateTransitionCount: Number(d.raw.workflowExecutionInfo!.stateTransitionCount),
    }).toEqual(before);
    // The attribute registered through OperatorService is still known.
    expect((await restarted.workflow.count(`${tier.name} = 'gold'`)).count).toBe(1);
    await again.terminate();
  }, 60_000);

  it('runs a mixed workload to the right results through repeated kills', async () => {
    const file = dbFile();
    const taskQueue = `chaos-${randomUUID()}`;
    let current = await server(file);
    const port = current.port;
    const greet = async (name: string) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
      return `Hello, ${name}!`;
    };
    await startWorker(current.address, taskQueue, { greet });
    const client = new Client({ connection: await Connection.connect({ address: current.address }) });
    closers.push(() => client.connection.close());
    const jobs: Array<Promise<[unknown, unknown]>> = [];
    const run = async <T>(start: () => Promise<{ result(): Promise<T> }>, expected: unknown) => {
      const handle = await start();
      return [await handle.result(), expected] as [unknown, unknown];
    };
    for (let i = 0; i < 8; i++) {
      const workflowId = (kind: string) => `${kind}-${i}-${randomUUID()}`;
      jobs.push(
        run(() => client.workflow.start(greeting, { taskQueue, workflowId: workflowId('greet'), args: [`g${i}`] }), `Hello, g${i}!`),
        run(() => client.workflow.start(parent, { taskQueue, workflowId: workflowId('parent'), args: [`p${i}`] }), `Hello, p${i}!`),
        run(
          () => client.workflow.start(countdown, { taskQueue, workflowId: workflowId('countdown'), args: [3] }),
          'done after 4 runs, continued from a previous run',
        ),
        // Signal-with-start: a signal sent after the start could come after the sleep on a loaded machine.
        run(
          () =>
            client.workflow.signalWithStart(sleepCollecting, {
              taskQueue,
              workflowId: workflowId('sleep'),
              args: [800 + i * 100],
              signal: addSignal,
              signalArgs: [`s${i}`],
            }),
          [`s${i}`],
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    for (const delay of [150, 300, 600]) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      await kill(current);
      current = await server(file, port);
    }
    for (const [result, expected] of await Promise.all(jobs)) expect(result).toEqual(expected);
  }, 90_000);

  it('hands an activity that was running at the kill out again and refuses its old task token', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const activityQueue = `${taskQueue}-activities`;
    const first = await server(file);
    await startWorker(first.address, taskQueue);
    const client = await rawClient(first.address);
    const handle = await client.workflow.start(runActivity, {
      taskQueue,
      workflowId: `activity-${randomUUID()}`,
      args: ['anything', { taskQueue: activityQueue, startToCloseTimeout: '1 minute' }, ['x']],
    });
    const poll = () =>
      client.workflowService.pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: activityQueue }, identity: 'test' });
    const running = await poll();
    expect(running.attempt).toBe(1);

    await kill(first);
    await server(file, first.port);
    const stale = await grpcError(
      client.workflowService.respondActivityTaskCompleted({
        namespace: 'default',
        taskToken: running.taskToken,
        result: payloads('stale'),
      }),
    );
    expect(stale).toMatchObject({ code: 5, details: expect.stringMatching(/before the server restarted/) });
    const again = await poll();
    expect({ activityId: again.activityId, attempt: again.attempt }).toEqual({ activityId: running.activityId, attempt: 1 });
    await client.workflowService.respondActivityTaskCompleted({
      namespace: 'default',
      taskToken: again.taskToken,
      result: payloads('done'),
    });
    expect(await handle.result()).toEqual({ ok: 'done' });
  }, 60_000);

  it('keeps a paused activity paused, with its pause info, and runs it once unpaused', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const first = await server(file);
    await startWorker(first.address, taskQueue, { greet: async (name: string) => `Hello, ${name}!` });
    const client = await rawClient(first.address);
    // Its queue has no worker until after the restart, so the activity waits, queued.
    const activityQueue = `${taskQueue}-activities`;
    const handle = await client.workflow.start(runActivity, {
      taskQueue,
      workflowId: `paused-${randomUUID()}`,
      args: ['greet', { taskQueue: activityQueue, activityId: 'greet-1', startToCloseTimeout: '1 minute' }, ['paused']],
    });
    const execution = { workflowId: handle.workflowId };
    await eventually(async () => (await handle.describe()).raw.pendingActivities?.length === 1);
    await client.workflowService.pauseActivity({ namespace: 'default', execution, id: 'greet-1', identity: 'ops', reason: 'hold on' });
    await kill(first);

    const db = new DatabaseSync(file, { readOnly: true });
    const row = db.prepare('SELECT state FROM executions WHERE workflow_id = ?').get(handle.workflowId)!;
    db.close();
    const stored = JSON.parse(String(row.state)).activities[0];
    expect(stored.pause).toMatchObject({ identity: 'ops', reason: 'hold on' });

    await server(file, first.port);
    await startWorker(first.address, activityQueue, { greet: async (name: string) => `Hello, ${name}!` });
    await new Promise((r) => setTimeout(r, 500));
    const pending = (await handle.describe()).raw.pendingActivities![0]!;
    expect(pending.paused).toBe(true);
    expect(pending.pauseInfo?.manual).toEqual({ identity: 'ops', reason: 'hold on' });
    await client.workflowService.unpauseActivity({ namespace: 'default', execution, id: 'greet-1' });
    expect(await handle.result()).toEqual({ ok: 'Hello, paused!' });
  }, 60_000);

  it('times out a workflow task that was running at the kill and hands out its next attempt', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const first = await server(file);
    const client = await rawClient(first.address);
    const workflowId = `task-${randomUUID()}`;
    await client.workflowService.startWorkflowExecution({
      namespace: 'default',
      workflowId,
      workflowType: { name: 'collect' },
      taskQueue: { name: taskQueue },
      input: payloads(1),
      requestId: randomUUID(),
    });
    const poll = () =>
      client.workflowService.pollWorkflowTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, identity: 'test' });
    const running = await poll();
    expect(running.attempt).toBe(1);

    await kill(first);
    await server(file, first.port);
    const stale = await grpcError(
      client.workflowService.respondWorkflowTaskCompleted({ namespace: 'default', taskToken: running.taskToken }),
    );
    expect(stale).toMatchObject({ code: 5, details: expect.stringMatching(/before the server restarted/) });
    const next = await poll();
    expect(next.attempt).toBe(2);
    expect(eventTypes(next.history!.events)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_TIMED_OUT',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
    ]);
  }, 60_000);

  it('treats eagerly dispatched tasks running at the kill as started: the workflow task times out, the activity is handed out again', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const activityQueue = `${taskQueue}-eager`;
    const first = await server(file);
    const client = await rawClient(first.address);
    const svc = client.workflowService;
    const start = (workflowId: string, queue: string) =>
      svc.startWorkflowExecution({
        namespace: 'default',
        workflowId,
        workflowType: { name: 'driven-by-the-test' },
        taskQueue: { name: queue },
        requestId: randomUUID(),
        identity: 'test',
        requestEagerExecution: true,
      });
    const eagerWorkflow = await start(`eager-task-${randomUUID()}`, taskQueue);
    const withActivity = await start(`eager-activity-${randomUUID()}`, activityQueue);
    const completed = await svc.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: withActivity.eagerWorkflowTask!.taskToken,
      identity: 'test',
      commands: [
        {
          commandType: temporal.api.enums.v1.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: 'eager',
            activityType: { name: 'work' },
            taskQueue: { name: activityQueue },
            startToCloseTimeout: msToTs('1 minute'),
            requestEagerExecution: true,
          },
        },
      ],
    });
    const activity = completed.activityTasks![0]!;

    await kill(first);
    await server(file, first.port);
    for (const stale of [
      await grpcError(svc.respondWorkflowTaskCompleted({ namespace: 'default', taskToken: eagerWorkflow.eagerWorkflowTask!.taskToken })),
      await grpcError(svc.respondActivityTaskCompleted({ namespace: 'default', taskToken: activity.taskToken })),
    ]) {
      expect(stale).toMatchObject({ code: 5, details: expect.stringMatching(/before the server restarted/) });
    }
    const next = await svc.pollWorkflowTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, identity: 'test' });
    expect(next.workflowExecution!.runId).toBe(eagerWorkflow.runId);
    expect(next.attempt).toBe(2);
    expect(eventTypes(next.history!.events)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_TIMED_OUT',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
    ]);
    const again = await svc.pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: activityQueue }, identity: 'test' });
    expect({ activityId: again.activityId, attempt: again.attempt }).toEqual({ activityId: 'eager', attempt: 1 });
    expect(again.workflowExecution!.runId).toBe(withActivity.runId);
  }, 60_000);

  it('keeps an update admitted with its start and delivers it in the first workflow task after the restart', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const workflowId = `uws-${randomUUID()}`;
    const first = await server(file);
    const client = await rawClient(first.address);
    const svc = client.workflowService;
    const completedStage = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED;
    const call = svc
      .executeMultiOperation({
        namespace: 'default',
        operations: [
          {
            startWorkflow: {
              namespace: 'default',
              workflowId,
              workflowType: { name: 'collect' },
              taskQueue: { name: taskQueue },
              input: payloads(2),
              requestId: randomUUID(),
            },
          },
          {
            updateWorkflow: {
              namespace: 'default',
              workflowExecution: { workflowId },
              request: { meta: { updateId: 'kept' }, input: { name: 'addItem', args: payloads('kept') } },
              waitPolicy: { lifecycleStage: completedStage },
            },
          },
        ],
      })
      .catch((e: unknown) => e);
    const updateRef = { workflowExecution: { workflowId }, updateId: 'kept' };
    const admittedStage = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED;
    await eventually(() =>
      svc.pollWorkflowExecutionUpdate({ namespace: 'default', updateRef, waitPolicy: { lifecycleStage: admittedStage } }).then(
        () => true,
        () => false,
      ),
    );

    await kill(first);
    expect(await call).toMatchObject({ code: 14 });
    await server(file, first.port);
    await startWorker(first.address, taskQueue);
    const polled = await svc.pollWorkflowExecutionUpdate({
      namespace: 'default',
      updateRef,
      waitPolicy: { lifecycleStage: completedStage },
    });
    expect(defaultPayloadConverter.fromPayload(polled.outcome!.success!.payloads![0]!)).toBe(1);
    const { history } = await svc.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
    const types = eventTypes(history!.events);
    expect(types.indexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toBe(types.indexOf('WORKFLOW_TASK_COMPLETED') + 1);
  }, 60_000);

  it('keeps worker deployments with their routing, a pinned run on its version and standalone activities', async () => {
    const file = dbFile();
    const taskQueue = `persist-${randomUUID()}`;
    const idleQueue = `persist-idle-${randomUUID()}`;
    const version = { deploymentName: `deployment-${randomUUID()}`, buildId: 'b1' };
    const first = await server(file);
    await startWorker(
      first.address,
      taskQueue,
      { whoAmI: async () => 'b1', double: async (n: number) => n * 2 },
      { workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'AUTO_UPGRADE' } },
    );
    const client = new Client({ connection: await Connection.connect({ address: first.address }) });
    closers.push(() => client.connection.close());
    const svc = client.workflowService;
    const describeDeployment = () => svc.describeWorkerDeployment({ namespace: 'default', deploymentName: version.deploymentName });
    await eventually(async () =>
      describeDeployment().then(
        (d) => d.workerDeploymentInfo?.versionSummaries?.length === 1,
        () => false,
      ),
    );
    await eventually(async () =>
      svc.setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName: version.deploymentName, buildId: 'b1' }).then(
        () => true,
        () => false,
      ),
    );
    const pinned = await client.workflow.start(pinnedSteps, { taskQueue, workflowId: `pinned-${randomUUID()}`, args: [1] });
    const versioningInfo = async () => (await pinned.describe()).raw.workflowExecutionInfo?.versioningInfo;
    await eventually(async () => (await versioningInfo())?.deploymentVersion?.buildId === 'b1');
    const done = await client.activity.start('double', { id: `done-${randomUUID()}`, taskQueue, startToCloseTimeout: '10s', args: [4] });
    expect(await done.result()).toBe(8);
    // No worker polls this queue before the restart: the activity waits in it.
    const waiting = await client.activity.start('double', {
      id: `waiting-${randomUUID()}`,
      taskQueue: idleQueue,
      startToCloseTimeout: '10s',
      args: [5],
    });
    const before = { deployment: await describeDeployment(), versioning: await versioningInfo(), done: await done.describe() };

    await kill(first);
    await server(file, first.port);
    const deployment = await describeDeployment();
    expect(deployment.workerDeploymentInfo?.routingConfig).toEqual(before.deployment.workerDeploymentInfo?.routingConfig);
    expect(deployment.workerDeploymentInfo?.versionSummaries?.map((v) => [v.deploymentVersion?.buildId, v.status])).toEqual([
      ['b1', temporal.api.enums.v1.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT],
    ]);
    expect(await versioningInfo()).toEqual(before.versioning);
    const doneAfter = await done.describe();
    expect([doneAfter.status, doneAfter.attempt, doneAfter.lastWorkerIdentity]).toEqual([
      before.done.status,
      1,
      before.done.lastWorkerIdentity,
    ]);
    expect(await done.result()).toBe(8);

    // The versioned worker reconnects by itself; the pinned run goes on on its version.
    await pinned.signal(proceedSignal);
    expect(await pinned.result()).toEqual(['b1', 'b1']);
    await startWorker(first.address, idleQueue, { double: async (n: number) => n * 2 });
    expect(await waiting.result()).toBe(10);
  }, 60_000);
});

describe('the state file', () => {
  it('holds exactly the state in memory after a varied workload', async () => {
    const file = dbFile();
    const server = await startTemporalDevServer({
      dbFilename: file,
      namespaces: ['default', 'other'],
      searchAttributes: {
        [CustomKeyword.name]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        [CustomInt.name]: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      },
    });
    const taskQueue = `varied-${randomUUID()}`;
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection });
      // No workflow cache, hence no sticky queue: a sticky worker's shutdown would touch every run
      // it served and so hide a change that was not written when it happened.
      const activities = {
        greet: async (name: string) => `Hello, ${name}!`,
        flaky: async () => {
          if (Context.current().info.attempt < 3) throw new Error('not yet');
          return 'third time';
        },
      };
      const workerConnection = await startWorker(server.address, taskQueue, activities, { maxCachedWorkflows: 0 });
      const id = (prefix: string) => `${prefix}-${randomUUID()}`;
      const opts = { taskQueue };
      // The worker runs its activities eagerly; this one also gets its first workflow task eagerly.
      const eager = await new Client({ connection: workerConnection }).workflow.start(greeting, {
        ...opts,
        workflowId: id('eager'),
        args: ['x'],
        requestEagerStart: true,
      });
      expect(eager.eagerlyStarted).toBe(true);
      expect(await eager.result()).toBe('Hello, x!');
      const startWorkflowOperation = new WithStartWorkflowOperation(collect, {
        ...opts,
        workflowId: id('update-with-start'),
        args: [2],
        workflowIdConflictPolicy: 'FAIL',
      });
      expect(await client.workflow.executeUpdateWithStart(addUpdate, { args: ['first'], startWorkflowOperation })).toBe(1);
      await client.workflow.execute(greeting, {
        ...opts,
        workflowId: id('greet'),
        args: ['x'],
        priority: { priorityKey: 1 },
        staticSummary: 'greets',
      });
      await client.workflow.execute(parent, { ...opts, workflowId: id('parent'), args: ['child'] });
      await client.workflow.execute(countdown, { ...opts, workflowId: id('countdown'), args: [2] });
      await client.workflow.execute(cancelTimer, { ...opts, workflowId: id('timer') });
      await client.workflow.execute(failFirstAttempt, { ...opts, workflowId: id('retry'), retry: { initialInterval: '10ms' } });
      await client.workflow.execute(runActivity, {
        ...opts,
        workflowId: id('flaky'),
        args: ['flaky', { startToCloseTimeout: '10s', retry: { initialInterval: '10ms' } }, []],
      });
      const collecting = await client.workflow.start(collect, { ...opts, workflowId: id('collect'), args: [2] });
      await collecting.signal(addSignal, 'a');
      expect(await collecting.executeUpdate(addUpdate, { args: ['b'] })).toBe(2);
      expect(await collecting.query(itemsQuery)).toEqual(['a', 'b']);
      await collecting.result();
      const cancelled = await client.workflow.start(waitForever, { ...opts, workflowId: id('cancel') });
      await cancelled.cancel();
      await expect(cancelled.result()).rejects.toThrow();
      // Left running: a timer and an activity backing off between attempts stay pending.
      const upserting = await client.workflow.start(upserter, { ...opts, workflowId: id('upsert'), args: ['kw'] });
      await eventually(async () => (await upserting.describe()).searchAttributes.CustomKeywordField);
      const backingOff = await client.workflow.start(runActivity, {
        ...opts,
        workflowId: id('backoff'),
        args: ['flaky', { startToCloseTimeout: '10s', retry: { initialInterval: '1 hour' } }, []],
      });
      await eventually(async () => (await backingOff.describe()).raw.pendingActivities?.[0]?.attempt === 2);
      await client.workflowService.pauseActivity({ namespace: 'default', execution: { workflowId: backingOff.workflowId }, type: 'flaky' });
      const sleeping = await client.workflow.start(sleepCollecting, { ...opts, workflowId: id('sleep'), args: [3600_000] });
      await sleeping.signal(addSignal, 'kept');
      await new Client({ connection, namespace: 'other' }).workflow.start(waitForever, { ...opts, workflowId: id('other') });
    } finally {
      for (const close of closers.splice(0).reverse()) await close();
      await connection.close();
      await server.stop();
    }

    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const stored = db.prepare('SELECT seq, namespace, run_id, options, state FROM executions ORDER BY seq').all();
      const runs = [...server.state.namespaces.values()].flatMap((ns) => ns.runs);
      expect(stored.map((r) => r.run_id).sort()).toEqual(runs.map((r) => r.runId).sort());
      expect(runs.length).toBeGreaterThan(15);
      const eventsOf = db.prepare('SELECT event FROM history_events WHERE run_seq = ? ORDER BY event_id');
      for (const row of stored) {
        const exec = server.state.namespace(String(row.namespace)).runs.find((r) => r.runId === row.run_id)!;
        expect(row.options, exec.workflowId).toBe(toJson(exec.options));
        expect(row.state, exec.workflowId).toBe(toJson(exec.snapshot()));
        expect(eventsOf.all(Number(row.seq)).map((e) => e.event)).toEqual(exec.history.events.map((e) => toJson(e)));
      }
      const namespaces = db.prepare('SELECT name, state FROM namespaces ORDER BY seq').all();
      expect(namespaces).toEqual([...server.state.namespaces.values()].map((ns) => ({ name: ns.name, state: toJson(ns.snapshot()) })));
      const attributes = db.prepare('SELECT name, type FROM search_attributes').all();
      expect(Object.fromEntries(attributes.map((a) => [a.name, a.type]))).toEqual(Object.fromEntries(server.state.searchAttributeTypes));
    } finally {
      db.close();
    }
  }, 60_000);
});

describe('crash consistency', () => {
  it('keeps every acknowledged start and signal when killed during a burst, and the file passes an integrity check', async () => {
    const file = dbFile();
    const taskQueue = `burst-${randomUUID()}`;
    const first = await server(file);
    const client = await rawClient(first.address);
    const acknowledged: Array<{ workflowId: string; runId: string; signals: string[] }> = [];
    let killed = false;
    const loops = Array.from({ length: 8 }, async (_, loop) => {
      for (let i = 0; !killed; i++) {
        const workflowId = `burst-${loop}-${i}`;
        try {
          const { runId } = await client.workflowService.startWorkflowExecution({
            namespace: 'default',
            workflowId,
            workflowType: { name: 'collect' },
            taskQueue: { name: taskQueue },
            input: payloads(3),
            requestId: randomUUID(),
          });
          const started = { workflowId, runId: runId!, signals: [] as string[] };
          acknowledged.push(started);
          for (const item of ['a', 'b']) {
            await client.workflowService.signalWorkflowExecution({
              namespace: 'default',
              workflowExecution: { workflowId, runId },
              signalName: 'add',
              input: payloads(item),
              requestId: randomUUID(),
            });
            started.signals.push(item);
          }
        } catch {
          return; // the server is gone
        }
      }
    });
    await eventually(async () => acknowledged.length >= 40);
    await kill(first);
    killed = true;
    await Promise.all(loops);

    const db = new DatabaseSync(file);
    try {
      expect(db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }

    await server(file, first.port);
    for (const { workflowId, runId, signals } of acknowledged) {
      const history = await client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId, runId } });
      const received = history
        .history!.events!.filter((e) => e.workflowExecutionSignaledEventAttributes)
        .map((e) => {
          return defaultPayloadConverter.fromPayload(e.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!);
        });
      expect(received.slice(0, signals.length), workflowId).toEqual(signals);
    }
  }, 60_000);
});

describe('state files it cannot use', () => {
  const refusal = async (file: string) => {
    const err = await startServer(file).then(
      async (s) => {
        await kill(s);
        throw new Error('the server started');
      },
      (e: Error) => e.message,
    );
    return err;
  };

  it('refuses a file of another schema version, naming both versions', async () => {
    const file = dbFile();
    await kill(await server(file));
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(await refusal(file)).toMatch(
      /exited with 1: temporal-dev: .* has temporal-dev schema version 99, but this temporal-dev reads version 1 only/,
    );
  });

  it('refuses another SQLite database, a file that is no database, and a file another server holds', async () => {
    const foreign = dbFile();
    const db = new DatabaseSync(foreign);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(await refusal(foreign)).toMatch(/is not a temporal-dev state file \(it is another SQLite database\)/);

    const text = dbFile();
    await writeFile(text, 'not a database, just text that is long enough to fill a header...........................');
    expect(await refusal(text)).toMatch(/is not a temporal-dev state file: file is not a database/);

    const held = dbFile();
    await server(held);
    expect(await refusal(held)).toMatch(/is in use by another process/);
  });
});

describe('the state file’s mode', () => {
  it('is readable by its owner only (the file and its WAL), and a file an earlier version made 0644 is narrowed', async () => {
    const file = dbFile();
    const first = await startTemporalDevServer({ dbFilename: file });
    try {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(`${file}-wal`)).mode & 0o777).toBe(0o600);
    } finally {
      await first.stop();
    }
    await chmod(file, 0o644);
    const second = await startTemporalDevServer({ dbFilename: file });
    await second.stop();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});

describe('a copy of the state while the server runs', () => {
  it('holds every answered change up to the copy and none after; a server started on it resumes from there', async () => {
    const file = dbFile();
    const copy = dbFile();
    const running = await startTemporalDevServer({ dbFilename: file });
    closers.push(() => running.stop());
    const client = await rawClient(running.address);
    // No worker polls this queue: the runs stay open, which is all the copy has to keep.
    const start = (workflowId: string) => client.workflow.start('waitForever', { taskQueue: 'copy-queue', workflowId });
    await start('before-copy');
    await client.schedule.create({
      scheduleId: 'hourly',
      spec: { intervals: [{ every: '1h' }] },
      action: { type: 'startWorkflow', workflowType: 'waitForever', taskQueue: 'copy-queue', workflowId: 'from-schedule' },
    });
    running.copyStateTo!(copy);
    expect(() => running.copyStateTo!(copy)).toThrow(/exists/);
    await start('after-copy');

    const restored = await startTemporalDevServer({ dbFilename: copy });
    closers.push(() => restored.stop());
    const again = await rawClient(restored.address);
    expect((await again.workflow.getHandle('before-copy').describe()).status.name).toBe('RUNNING');
    expect((await again.schedule.getHandle('hourly').describe()).spec.intervals?.[0]?.every).toBe(3_600_000);
    await expect(again.workflow.getHandle('after-copy').describe()).rejects.toThrow(/not found/i);
  });
});
