// Schedules through the SDK's ScheduleClient: lifecycle, actions on a worker (time-skipping, so
// hours pass in milliseconds, plus one real-time run), triggers, pause, backfill, overlap
// policies, catch-up after downtime, pause-on-failure, action limits, specs across DST, jitter
// and errors.
import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  type ScheduleDescription,
  type ScheduleHandle,
  ScheduleNotFoundError,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { defineSearchAttributeKey, NamespaceNotFoundError, type TypedSearchAttributes, type Workflow } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTemporalDevServer } from '../index.ts';
import { usesDownloadedServer } from '../testing.ts';
import { eventually, grpcError, type Suite, setupSuite, teardownSuite } from './helpers.ts';
import { countedRun, failing, waitForever } from './workflows/index.ts';

const { IndexedValueType } = temporal.api.enums.v1;
const HOUR = 3600_000;
const ownerKey = defineSearchAttributeKey('ScheduleOwner', 'KEYWORD');
const teamKey = defineSearchAttributeKey('ScheduledTeam', 'KEYWORD');

let s: Suite;

const sid = () => `sched-${randomUUID()}`;

/** Creates a schedule starting `workflowType` on the suite's queue; the caller adds spec, policies and state. */
function create(
  options: Omit<ScheduleOptions, 'action' | 'scheduleId'> & { workflowType?: Workflow; args?: unknown[] },
): Promise<ScheduleHandle> {
  const { workflowType = countedRun, args = [], ...rest } = options;
  const scheduleId = sid();
  return s.env.client.schedule.create({
    scheduleId,
    ...rest,
    action: { type: 'startWorkflow', workflowType, args, taskQueue: s.taskQueue, workflowId: `${scheduleId}-wf` },
  });
}

/** Seconds-precision RFC 3339, as in a scheduled workflow's id. */
const idTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

async function statusOf(workflowId: string): Promise<string> {
  return (await s.env.client.workflow.getHandle(workflowId).describe()).status.name;
}

// The Java test server behind the downloaded time-skipping environment has no schedules.
describe.runIf(!usesDownloadedServer())('on the time-skipping server', () => {
  beforeAll(async () => {
    s = await setupSuite('time-skipping', 'schedules', {});
    // Like Temporal, the server refuses search attributes nobody registered.
    const searchAttributes = Object.fromEntries([ownerKey, teamKey].map((k) => [k.name, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]));
    await s.env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes });
  });
  afterAll(() => teardownSuite(s));

  describe('schedule lifecycle', () => {
    it('creates, describes, lists, updates and deletes a schedule', async () => {
      const handle = await create({
        spec: {
          calendars: [{ hour: { start: 2, end: 7, step: 1 }, dayOfWeek: 'MONDAY', comment: 'early mondays' }],
          intervals: [{ every: '1h', offset: '5m' }],
          cronExpressions: ['0 12 * * MON-WED,FRI'],
          skip: [{ hour: 3 }],
          timezone: 'Europe/Berlin',
          jitter: '1s',
        },
        policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '5 minutes', pauseOnFailure: true },
        state: { note: 'created by the test', remainingActions: 5 },
        memo: { purpose: 'lifecycle' },
        typedSearchAttributes: [{ key: ownerKey, value: 'team-a' }],
      });
      const d = await handle.describe();
      expect(d.spec.intervals).toEqual([{ every: HOUR, offset: 5 * 60_000 }]);
      expect(d.spec.calendars).toHaveLength(2);
      expect(d.spec.calendars?.[0]).toMatchObject({
        hour: [{ start: 2, end: 7, step: 1 }],
        dayOfWeek: [{ start: 'MONDAY', end: 'MONDAY', step: 1 }],
        minute: [{ start: 0, end: 0, step: 1 }],
        comment: 'early mondays',
      });
      // The cron string comes back as a structured calendar, as Temporal canonicalises it.
      expect(d.spec.calendars?.[1]).toMatchObject({
        hour: [{ start: 12, end: 12, step: 1 }],
        dayOfWeek: [
          { start: 'MONDAY', end: 'WEDNESDAY', step: 1 },
          { start: 'FRIDAY', end: 'FRIDAY', step: 1 },
        ],
        year: [],
      });
      expect(d.spec.skip?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }] });
      expect(d.spec.timezone).toBe('Europe/Berlin');
      expect(d.spec.jitter).toBe(1000);
      expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'countedRun', taskQueue: s.taskQueue });
      expect(d.policies).toEqual({ overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: 5 * 60_000, pauseOnFailure: true });
      expect(d.state).toEqual({ paused: false, note: 'created by the test', remainingActions: 5 });
      expect(d.memo).toEqual({ purpose: 'lifecycle' });
      expect(d.typedSearchAttributes.get(ownerKey)).toBe('team-a');
      expect(d.info.numActionsTaken).toBe(0);
      expect(d.info.nextActionTimes).toHaveLength(5);
      expect(d.info.createdAt.getTime()).toBeLessThanOrEqual(await s.env.currentTimeMs());

      await handle.update((prev) => ({
        ...prev,
        spec: { intervals: [{ every: '2h' }] },
        state: { ...prev.state, remainingActions: undefined },
        typedSearchAttributes: [{ key: ownerKey, value: 'team-b' }],
      }));
      const u = await handle.describe();
      expect(u.spec.intervals).toEqual([{ every: 2 * HOUR, offset: undefined }]);
      expect(u.spec.calendars).toEqual([]);
      expect(u.state.remainingActions).toBeUndefined();
      expect(u.typedSearchAttributes.get(ownerKey)).toBe('team-b');
      expect(u.info.lastUpdatedAt).toBeInstanceOf(Date);
      expect(u.info.nextActionTimes).toHaveLength(10);
      for (const t of u.info.nextActionTimes) expect(t.getTime() % (2 * HOUR)).toBe(0);

      await handle.delete();
      await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    });

    it('keeps its search attributes given untyped, typed or both, typed by their registration, and describes them in both forms', async () => {
      // The inputs of Temporal's SDK test "creating schedules with various input search attributes".
      const when = new Date();
      const noteKey = defineSearchAttributeKey('ScheduleNote', 'TEXT');
      const sizeKey = defineSearchAttributeKey('ScheduleSize', 'INT');
      const sinceKey = defineSearchAttributeKey('ScheduleSince', 'DATETIME');
      const tagsKey = defineSearchAttributeKey('ScheduleTags', 'KEYWORD_LIST');
      await s.env.connection.operatorService.addSearchAttributes({
        namespace: 'default',
        searchAttributes: {
          [noteKey.name]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
          [sizeKey.name]: IndexedValueType.INDEXED_VALUE_TYPE_INT,
          [sinceKey.name]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
          [tagsKey.name]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
        },
      });
      const untyped = { ScheduleNote: ['one'], ScheduleSize: [1], ScheduleSince: [when], ScheduleTags: ['a', 'b'] };
      const spec = { calendars: [{ hour: { start: 2, end: 7, step: 1 } }] };
      const state = { paused: true };
      const handles: ScheduleHandle[] = [];
      const described = async (options: Pick<ScheduleOptions, 'searchAttributes' | 'typedSearchAttributes'>) => {
        handles.push(await create({ spec, state, ...options }));
        return handles.at(-1)!.describe();
      };

      // Untyped values (no type in their payloads) take the registered type.
      const fromUntyped = await described({ searchAttributes: untyped });
      expect(fromUntyped.searchAttributes).toEqual(untyped);
      expect(fromUntyped.typedSearchAttributes.getAll()).toEqual([
        { key: noteKey, value: 'one' },
        { key: sizeKey, value: 1 },
        { key: sinceKey, value: when },
        { key: tagsKey, value: ['a', 'b'] },
      ]);

      const fromTyped = await described({
        typedSearchAttributes: [
          { key: sizeKey, value: 123 },
          { key: noteKey, value: 'typed' },
        ],
      });
      expect(fromTyped.searchAttributes).toEqual({ ScheduleSize: [123], ScheduleNote: ['typed'] });
      expect(fromTyped.typedSearchAttributes.get(sizeKey)).toBe(123);

      // Both: the typed value wins where both name an attribute.
      const fromBoth = await described({
        searchAttributes: { ...untyped, ScheduleNote: ['untyped'] },
        typedSearchAttributes: [{ key: noteKey, value: 'typed' }],
      });
      expect(fromBoth.searchAttributes).toEqual({ ...untyped, ScheduleNote: ['typed'] });
      expect(fromBoth.typedSearchAttributes.get(noteKey)).toBe('typed');
      expect(fromBoth.typedSearchAttributes.get(sinceKey)).toEqual(when);
      for (const h of handles) await h.delete();
    });

    it("describes its action's search attributes given untyped among the typed ones", async () => {
      // Temporal's SDK test "Can create schedule with startWorkflow action": the action's legacy
      // searchAttributes and typedSearchAttributes are merged, and Describe reads both back typed.
      const scheduleId = sid();
      const handle = await s.env.client.schedule.create({
        scheduleId,
        spec: { calendars: [{ hour: { start: 2, end: 7, step: 1 } }] },
        state: { paused: true },
        action: {
          type: 'startWorkflow',
          workflowType: countedRun,
          taskQueue: s.taskQueue,
          searchAttributes: { ScheduledTeam: ['untyped-team'] },
          typedSearchAttributes: [{ key: ownerKey, value: 'typed-owner' }],
        },
      });
      const { action } = await handle.describe();
      if (action.type !== 'startWorkflow') throw new Error(`unexpected action ${action.type}`);
      expect(action.searchAttributes).toEqual({ ScheduledTeam: ['untyped-team'], ScheduleOwner: ['typed-owner'] });
      // Described, they are TypedSearchAttributes (the options' type also allows a plain list).
      const typed = action.typedSearchAttributes as TypedSearchAttributes;
      expect(typed.get(teamKey)).toBe('untyped-team');
      expect(typed.get(ownerKey)).toBe('typed-owner');
      expect(typed.getAll()).toHaveLength(2);
      await handle.delete();
    });

    it('lists schedules page by page with what the SDK summarises, and filters by query', async () => {
      const group = randomUUID();
      const handles = await Promise.all(
        [0, 1, 2, 3, 4].map(() =>
          create({
            spec: { intervals: [{ every: '1 day' }] },
            memo: { group },
            typedSearchAttributes: [{ key: teamKey, value: group }],
            state: { paused: true, note: 'listed' },
          }),
        ),
      );
      const listed = [];
      for await (const summary of s.env.client.schedule.list({ pageSize: 2, query: `ScheduledTeam = '${group}'` })) listed.push(summary);
      expect(listed.map((x) => x.scheduleId).sort()).toEqual(handles.map((h) => h.scheduleId).sort());
      expect(listed[0]).toMatchObject({
        memo: { group },
        action: { type: 'startWorkflow', workflowType: 'countedRun' },
        state: { paused: true, note: 'listed' },
        spec: { intervals: [{ every: 24 * HOUR, offset: undefined }] },
      });
      expect(listed[0]!.info.nextActionTimes).toHaveLength(5);
      expect(listed[0]!.typedSearchAttributes?.get(teamKey)).toBe(group);

      // Scheduler workflows count the way Temporal's UI counts them, and stay out of plain listings.
      const count = await s.env.client.workflowService.countWorkflowExecutions({
        namespace: 'default',
        query: `TemporalNamespaceDivision="TemporalScheduler" AND ExecutionStatus="Running" AND ScheduledTeam = '${group}'`,
      });
      expect(Number(count.count)).toBe(5);
      const plain = await s.env.client.workflowService.countWorkflowExecutions({
        namespace: 'default',
        query: `ScheduledTeam = '${group}'`,
      });
      expect(Number(plain.count)).toBe(0);
      const counted = await s.env.client.workflowService.countSchedules({ namespace: 'default', query: `ScheduledTeam = '${group}'` });
      expect(Number(counted.count)).toBe(5);

      await handles[0]!.delete();
      const after = [];
      for await (const summary of s.env.client.schedule.list({ query: `ScheduledTeam = '${group}'` })) after.push(summary.scheduleId);
      expect(after).toHaveLength(4);
      expect(after).not.toContain(handles[0]!.scheduleId);
      for (const h of handles.slice(1)) await h.delete();
    });
  });

  describe('actions', () => {
    it('starts workflows at each interval, handing each run the last result, visible with their schedule attributes', async () => {
      const scheduleId = sid();
      const handle = await s.env.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1h' }] },
        action: {
          type: 'startWorkflow',
          workflowType: countedRun,
          taskQueue: s.taskQueue,
          workflowId: `${scheduleId}-wf`,
          memo: { kind: 'scheduled' },
          typedSearchAttributes: [{ key: teamKey, value: 'nightly' }],
        },
      });
      const realStart = Date.now();
      await s.env.sleep('3h');
      expect(Date.now() - realStart).toBeLessThan(10_000);

      const d = await handle.describe();
      // Deleted before awaiting results: result() lets time skip, which would fire more actions.
      await handle.delete();
      expect(d.info.numActionsTaken).toBe(3);
      expect(d.info.recentActions).toHaveLength(3);
      const results: number[] = [];
      for (const action of d.info.recentActions) {
        const { workflowId } = action.action.workflow;
        expect(workflowId).toBe(`${scheduleId}-wf-${idTime(action.scheduledAt)}`);
        expect(action.scheduledAt.getTime() % HOUR).toBe(0);
        const wf = s.env.client.workflow.getHandle(workflowId);
        results.push(await wf.result());
        const info = await wf.describe();
        expect(info.memo).toEqual({ kind: 'scheduled' });
        expect(info.typedSearchAttributes.get(teamKey)).toBe('nightly');
        expect(info.searchAttributes.TemporalScheduledById).toEqual([scheduleId]);
        expect((info.searchAttributes.TemporalScheduledStartTime as Date[])[0]!.getTime()).toBe(action.scheduledAt.getTime());
      }
      expect(results).toEqual([1, 2, 3]);
      expect(d.info.runningActions).toEqual([]);

      const listed = [];
      for await (const wf of s.env.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) listed.push(wf.workflowId);
      expect(listed.sort()).toEqual(d.info.recentActions.map((a) => a.action.workflow.workflowId).sort());
    });

    it('triggers immediately, with the overlap policy given', async () => {
      const handle = await create({ spec: { calendars: [{ year: 2099, month: 'JANUARY' }] }, workflowType: waitForever });
      // The SDK's default for triggers is ALLOW_ALL, which would not block the next one.
      await handle.trigger(ScheduleOverlapPolicy.SKIP);
      const first = await eventually(async () => (await handle.describe()).info.recentActions[0]);
      expect(await statusOf(first.action.workflow.workflowId)).toBe('RUNNING');
      await s.env.sleep('2s');
      // A second trigger with SKIP while the first runs is skipped.
      await handle.trigger(ScheduleOverlapPolicy.SKIP);
      const d = await handle.describe();
      expect(d.info.numActionsTaken).toBe(1);
      expect(d.info.numActionsSkippedOverlap).toBe(1);
      expect(d.info.runningActions.map((a) => a.workflow.workflowId)).toEqual([first.action.workflow.workflowId]);
      await s.env.client.workflow.getHandle(first.action.workflow.workflowId).terminate();
      await handle.delete();
    });

    it('pauses and unpauses with notes; time spent paused is neither run nor counted as missed', async () => {
      const handle = await create({ spec: { intervals: [{ every: '1h' }] } });
      await handle.pause('maintenance');
      expect((await handle.describe()).state).toMatchObject({ paused: true, note: 'maintenance' });
      await s.env.sleep('3h');
      expect((await handle.describe()).info.numActionsTaken).toBe(0);
      await handle.unpause('back');
      await s.env.sleep('2h');
      const d = await handle.describe();
      expect(d.state).toMatchObject({ paused: false, note: 'back' });
      expect(d.info.numActionsTaken).toBe(2);
      expect(d.info.numActionsMissedCatchupWindow).toBe(0);
      await handle.delete();
    });

    it('backfills a past range, inclusive of its start, under the overlap policy given', async () => {
      const handle = await create({ spec: { intervals: [{ every: '1h' }] }, workflowType: waitForever, state: { paused: true } });
      const now = await s.env.currentTimeMs();
      const start = new Date(Math.floor(now / HOUR) * HOUR - 10 * HOUR);
      await handle.backfill({ start, end: new Date(start.getTime() + 4 * HOUR), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
      let d = await handle.describe();
      expect(d.info.recentActions.map((a) => a.scheduledAt.getTime())).toEqual([0, 1, 2, 3, 4].map((i) => start.getTime() + i * HOUR));
      // ALLOW_ALL runs overlap and are not tracked as running.
      expect(d.info.runningActions).toEqual([]);
      for (const a of d.info.recentActions) expect(await statusOf(a.action.workflow.workflowId)).toBe('RUNNING');

      const later = new Date(start.getTime() + 5 * HOUR);
      await handle.backfill({ start: later, end: new Date(later.getTime() + 2 * HOUR), overlap: ScheduleOverlapPolicy.SKIP });
      d = await handle.describe();
      expect(d.info.numActionsTaken).toBe(6);
      expect(d.info.numActionsSkippedOverlap).toBe(2);
      for (const a of d.info.recentActions) await s.env.client.workflow.getHandle(a.action.workflow.workflowId).terminate();
      await handle.delete();
    });
  });

  describe('overlap policies', () => {
    /** Runs three hourly actions of a workflow that waits until cancelled, under `overlap`. */
    async function threeActions(overlap: ScheduleOverlapPolicy): Promise<{ handle: ScheduleHandle; d: ScheduleDescription }> {
      const handle = await create({ spec: { intervals: [{ every: '1h' }] }, workflowType: waitForever, policies: { overlap } });
      await s.env.sleep('3h');
      return { handle, d: await handle.describe() };
    }
    const ids = (d: ScheduleDescription) => d.info.recentActions.map((a) => a.action.workflow.workflowId);
    const bufferSize = (d: ScheduleDescription) => Number(d.raw.info?.bufferSize ?? 0);

    it('SKIP drops actions while one runs', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.SKIP);
      expect(d.info.numActionsTaken).toBe(1);
      expect(d.info.numActionsSkippedOverlap).toBe(2);
      expect(bufferSize(d)).toBe(0);
      await s.env.client.workflow.getHandle(ids(d)[0]!).terminate();
      await handle.delete();
    });

    it('BUFFER_ONE keeps one action and starts it when the running one closes', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.BUFFER_ONE);
      expect(d.info.numActionsTaken).toBe(1);
      expect(d.info.numActionsSkippedOverlap).toBe(1);
      expect(bufferSize(d)).toBe(1);
      await s.env.client.workflow.getHandle(ids(d)[0]!).terminate();
      const next = await eventually(async () => {
        const now = await handle.describe();
        return now.info.numActionsTaken === 2 && now;
      });
      expect(bufferSize(next)).toBe(0);
      expect(await statusOf(ids(next)[1]!)).toBe('RUNNING');
      await s.env.client.workflow.getHandle(ids(next)[1]!).terminate();
      await handle.delete();
    });

    it('BUFFER_ALL keeps every action and runs them one after another', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.BUFFER_ALL);
      expect(d.info.numActionsTaken).toBe(1);
      expect(d.info.numActionsSkippedOverlap).toBe(0);
      expect(bufferSize(d)).toBe(2);
      for (let taken = 1; taken <= 3; taken++) {
        const now = await eventually(async () => {
          const x = await handle.describe();
          return x.info.numActionsTaken === taken && x;
        });
        expect(now.info.runningActions).toHaveLength(1);
        await s.env.client.workflow.getHandle(ids(now)[taken - 1]!).terminate();
      }
      await handle.delete();
    });

    it('CANCEL_OTHER cancels the running workflow and starts the new action once it closed', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.CANCEL_OTHER);
      expect(d.info.numActionsTaken).toBe(3);
      expect(await statusOf(ids(d)[0]!)).toBe('CANCELLED');
      expect(await statusOf(ids(d)[1]!)).toBe('CANCELLED');
      expect(await statusOf(ids(d)[2]!)).toBe('RUNNING');
      expect(d.info.runningActions.map((a) => a.workflow.workflowId)).toEqual([ids(d)[2]]);
      await s.env.client.workflow.getHandle(ids(d)[2]!).terminate();
      await handle.delete();
    });

    it('TERMINATE_OTHER terminates the running workflow and starts the new action', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.TERMINATE_OTHER);
      expect(d.info.numActionsTaken).toBe(3);
      expect(await statusOf(ids(d)[0]!)).toBe('TERMINATED');
      expect(await statusOf(ids(d)[1]!)).toBe('TERMINATED');
      expect(await statusOf(ids(d)[2]!)).toBe('RUNNING');
      await s.env.client.workflow.getHandle(ids(d)[2]!).terminate();
      await handle.delete();
    });

    it('ALLOW_ALL starts every action alongside the running ones', async () => {
      const { handle, d } = await threeActions(ScheduleOverlapPolicy.ALLOW_ALL);
      expect(d.info.numActionsTaken).toBe(3);
      for (const id of ids(d)) expect(await statusOf(id)).toBe('RUNNING');
      expect(d.info.runningActions).toEqual([]);
      for (const id of ids(d)) await s.env.client.workflow.getHandle(id).terminate();
      await handle.delete();
    });
  });

  describe('policies and limits', () => {
    it('pauses on a failed workflow when pauseOnFailure is set', async () => {
      const handle = await create({
        spec: { intervals: [{ every: '1h' }] },
        workflowType: failing,
        args: ['scheduled run broke'],
        policies: { pauseOnFailure: true },
      });
      await s.env.sleep('3h');
      const d = await handle.describe();
      expect(d.info.numActionsTaken).toBe(1);
      expect(d.state.paused).toBe(true);
      expect(d.state.note).toBe(
        `paused due to workflow failure: ${d.info.recentActions[0]!.action.workflow.workflowId}: scheduled run broke`,
      );
      await handle.delete();
    });

    it('stops taking actions when the remaining actions reach zero', async () => {
      const handle = await create({ spec: { intervals: [{ every: '1h' }] }, state: { remainingActions: 2 } });
      expect((await handle.describe()).info.nextActionTimes).toHaveLength(2);
      await s.env.sleep('5h');
      const d = await handle.describe();
      expect(d.info.numActionsTaken).toBe(2);
      expect(d.state.remainingActions).toBe(0);
      expect(d.info.nextActionTimes).toEqual([]);
      await handle.delete();
    });

    // Uses the in-process server: its schedule state is saved and loaded into a later server.
    it('after downtime, takes only the missed actions still within the catch-up window', async () => {
      const before = await startTemporalDevServer({ timeSkipping: true });
      const after = await startTemporalDevServer({ timeSkipping: true });
      const connections: Connection[] = [];
      const connect = async (address: string) => {
        const connection = await Connection.connect({ address });
        connections.push(connection);
        return { connection, client: new Client({ connection }) };
      };
      try {
        const handle = await (await connect(before.address)).client.schedule.create({
          scheduleId: 'catch-up',
          spec: { intervals: [{ every: '1h' }] },
          action: { type: 'startWorkflow', workflowType: waitForever, taskQueue: 'nobody-polls' },
          policies: { catchupWindow: '30 minutes', overlap: ScheduleOverlapPolicy.ALLOW_ALL },
        });
        const [first] = (await handle.describe()).info.nextActionTimes;
        const saved = JSON.parse(JSON.stringify(before.state.namespace('default').schedules.exportState()));
        await before.stop();

        // The server comes back five minutes after the fifth missed action.
        const { client } = await connect(after.address);
        after.state.clock.unlock();
        await after.state.clock.waitUntil(first!.getTime() + 4 * HOUR + 5 * 60_000);
        after.state.clock.lock();
        const ns = after.state.namespace('default');
        ns.schedules.importState(saved);
        ns.schedules.rearm();

        const d = await client.schedule.getHandle('catch-up').describe();
        expect(d.info.numActionsMissedCatchupWindow).toBe(4);
        expect(d.info.numActionsTaken).toBe(1);
        expect(d.info.recentActions[0]!.scheduledAt.getTime()).toBe(first!.getTime() + 4 * HOUR);
        expect(d.info.nextActionTimes[0]!.getTime()).toBe(first!.getTime() + 5 * HOUR);
      } finally {
        for (const c of connections) await c.close();
        await before.stop();
        await after.stop();
      }
    });
  });

  describe('specs', () => {
    const matching = async (handle: ScheduleHandle, from: string, to: string): Promise<string[]> => {
      const res = await s.env.client.schedule.workflowService.listScheduleMatchingTimes({
        namespace: 'default',
        scheduleId: handle.scheduleId,
        startTime: msToTs(Date.parse(from)),
        endTime: msToTs(Date.parse(to)),
      });
      return (res.startTime ?? []).map((t) => new Date(Number(t.seconds) * 1000).toISOString());
    };

    it('follows a calendar in a non-UTC time zone across DST changes', async () => {
      // New York, 01:30 daily: the fall-back day has two of them, one hour apart.
      const fall = await create({
        spec: { calendars: [{ hour: 1, minute: 30 }], timezone: 'America/New_York', startAt: new Date('2030-11-01T00:00:00-04:00') },
        state: { paused: true },
      });
      expect((await fall.describe()).info.nextActionTimes.slice(0, 5).map((t) => t.toISOString())).toEqual([
        '2030-11-01T05:30:00.000Z',
        '2030-11-02T05:30:00.000Z',
        '2030-11-03T05:30:00.000Z',
        '2030-11-03T06:30:00.000Z',
        '2030-11-04T06:30:00.000Z',
      ]);
      // 02:30 does not exist on the spring-forward day.
      const spring = await create({ spec: { cronExpressions: ['CRON_TZ=America/New_York 30 2 * * *'] }, state: { paused: true } });
      expect(await matching(spring, '2030-03-08T00:00:00Z', '2030-03-12T00:00:00Z')).toEqual([
        '2030-03-08T07:30:00.000Z',
        '2030-03-09T07:30:00.000Z',
        '2030-03-11T06:30:00.000Z',
      ]);
      expect((await spring.describe()).spec.timezone).toBe('America/New_York');
      await fall.delete();
      await spring.delete();
    });

    it('honours interval offsets, skip calendars and start/end times', async () => {
      const handle = await create({
        spec: {
          intervals: [{ every: '1h', offset: '15m' }],
          skip: [{ hour: 2, minute: 15 }],
          startAt: new Date('2030-01-01T00:30:00Z'),
          endAt: new Date('2030-01-01T04:15:00Z'),
        },
        state: { paused: true },
      });
      expect(await matching(handle, '2029-12-31T00:00:00Z', '2030-01-02T00:00:00Z')).toEqual([
        '2030-01-01T01:15:00.000Z',
        '2030-01-01T03:15:00.000Z',
        '2030-01-01T04:15:00.000Z',
      ]);
      await handle.delete();
    });

    it('keeps jitter within its bound and before the next action', async () => {
      const handle = await create({ spec: { intervals: [{ every: '1h' }], jitter: '10 minutes' }, state: { paused: true } });
      const res = await s.env.client.schedule.workflowService.listScheduleMatchingTimes({
        namespace: 'default',
        scheduleId: handle.scheduleId,
        startTime: msToTs(Date.parse('2030-01-01T00:00:00Z')),
        endTime: msToTs(Date.parse('2030-01-02T00:00:00Z')),
      });
      const offsets = (res.startTime ?? []).map((t) => (Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)) % HOUR);
      expect(offsets).toHaveLength(23);
      for (const o of offsets) expect(o).toBeLessThan(10 * 60_000);
      expect(new Set(offsets).size).toBeGreaterThan(1);
      // Jitter is deterministic: Describe predicts the same times as it takes.
      const jittered = (await handle.describe()).info.nextActionTimes.map((t) => t.getTime() % HOUR);
      expect(jittered.some((o) => o > 0)).toBe(true);
      await handle.delete();
    });
  });

  describe('errors', () => {
    it('answers like Temporal for duplicates, unknown schedules and namespaces, bad specs and stale updates', async () => {
      const handle = await create({ spec: { intervals: [{ every: '1h' }] }, state: { paused: true } });
      await expect(
        s.env.client.schedule.create({
          scheduleId: handle.scheduleId,
          spec: { intervals: [{ every: '1h' }] },
          action: { type: 'startWorkflow', workflowType: 'countedRun', taskQueue: s.taskQueue },
        }),
      ).rejects.toBeInstanceOf(ScheduleAlreadyRunning);

      // A create retried with the same request id succeeds; another request for the id does not.
      const svc = s.env.client.workflowService;
      const request = {
        namespace: 'default',
        scheduleId: sid(),
        requestId: randomUUID(),
        schedule: {
          spec: { interval: [{ interval: msToTs('1h') }] },
          action: { startWorkflow: { workflowId: 'raw', workflowType: { name: 'countedRun' }, taskQueue: { name: s.taskQueue } } },
          state: { paused: true },
        },
      };
      await svc.createSchedule(request);
      await svc.createSchedule(request);
      expect(await grpcError(svc.createSchedule({ ...request, requestId: randomUUID() }))).toMatchObject({ code: 6 });
      await s.env.client.schedule.getHandle(request.scheduleId).delete();

      const missing = s.env.client.schedule.getHandle('no-such-schedule');
      await expect(missing.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      await expect(missing.trigger()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      await expect(missing.delete()).rejects.toBeInstanceOf(ScheduleNotFoundError);

      const elsewhere = new Client({ connection: s.env.connection, namespace: 'no-such-namespace' });
      await expect(elsewhere.schedule.getHandle(handle.scheduleId).describe()).rejects.toBeInstanceOf(NamespaceNotFoundError);

      const bad = (spec: ScheduleOptions['spec']) =>
        s.env.client.schedule.create({
          scheduleId: sid(),
          spec,
          action: { type: 'startWorkflow', workflowType: 'countedRun', taskQueue: s.taskQueue },
        });
      // The SDK turns "Invalid schedule spec" INVALID_ARGUMENTs into TypeErrors with the reason.
      await expect(bad({ intervals: [{ every: '500ms' }] })).rejects.toThrow(new TypeError('interval is too small'));
      await expect(bad({ intervals: [{ every: '1h', offset: '2h' }] })).rejects.toThrow(/phase cannot be greater than Interval/);
      await expect(bad({ calendars: [{ hour: 1 }], timezone: 'Mars/Olympus_Mons' })).rejects.toThrow(/unknown time zone/);
      await expect(bad({ cronExpressions: ['61 * * * *'] })).rejects.toThrow(/Minute is not in range/);

      // A stale conflict token is refused.
      const { conflictToken } = await s.env.client.workflowService.describeSchedule({
        namespace: 'default',
        scheduleId: handle.scheduleId,
      });
      await handle.pause('bump the token');
      const current = await s.env.client.workflowService.describeSchedule({ namespace: 'default', scheduleId: handle.scheduleId });
      const stale = s.env.client.workflowService.updateSchedule({
        namespace: 'default',
        scheduleId: handle.scheduleId,
        schedule: current.schedule,
        conflictToken,
        requestId: randomUUID(),
      });
      expect(await grpcError(stale)).toMatchObject({ code: 9, details: 'mismatched conflict token' });
      await handle.delete();
    });
  });
});

describe('in real time (local server)', () => {
  let local: Suite;
  beforeAll(async () => {
    local = await setupSuite('local', 'schedules-local', {});
  });
  afterAll(() => teardownSuite(local));

  it('fires an interval schedule every second', async () => {
    const scheduleId = sid();
    const handle = await local.env.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1s' }] },
      action: { type: 'startWorkflow', workflowType: countedRun, taskQueue: local.taskQueue },
      // So that a slow worker cannot make a second overlap the first and be skipped.
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
    });
    const d = await eventually(async () => {
      const x = await handle.describe();
      return x.info.numActionsTaken >= 2 && x;
    });
    await handle.delete();
    const [a, b] = d.info.recentActions;
    expect(b!.scheduledAt.getTime() - a!.scheduledAt.getTime()).toBe(1000);
    expect(await local.env.client.workflow.getHandle(a!.action.workflow.workflowId).result()).toBe(1);
  });
});
