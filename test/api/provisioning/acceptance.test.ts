import fs from 'node:fs/promises';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CELL_TAG } from '../../../domain/provisioning/cloud-provider.ts';
import { ensureSearchAttributes, SVC_CELL_ID, SVC_PROVISIONING_PART } from '../../../worker/search-attributes.ts';
import { bearer, operatorKey } from '../../support/identity.ts';
import { controlPlane, initializeBody } from '../../support/provisioning.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Issue 39's acceptance journey as one ops person walks it, on the service (role all) with the
// local cloud provider: initialize; re-run with the same parameters (all reused); re-run with
// changed ones (409 with the diff, nothing changed); apply the move; the instance terminated in
// the cloud (status shows the drift and the remedy) and replaced by one call; drift of each kind.
// On the way: the run is found by its search attributes, its steps are named in its history.

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  op = await operatorKey(svc);
}, 120_000);
afterAll(() => svc.close());

const CELL = 'cell-journey';
const cp = () => controlPlane(svc, op);
const status = () => cp().status(CELL);
const A = () => path.join(svc.companyRoot, 'journey', 'first');
const B = () => path.join(svc.companyRoot, 'journey', 'second');
const localCloud = () => path.join(path.dirname(path.dirname(svc.temporal!.embeddedStateFile!)), 'local-cloud');
/** Every entry under `dir`, relative, sorted. */
const tree = async (dir: string) => ((await fs.readdir(dir, { recursive: true })) as string[]).sort();
const requests = async () => (await svc.database.db.selectFrom('provisioning_requests').select('id').execute()).length;
/** The local provider's file of an instance (one JSON file per client token). */
async function instanceFile(instanceId: string): Promise<string> {
  for (const name of await fs.readdir(localCloud())) {
    const file = path.join(localCloud(), name);
    if (JSON.parse(await fs.readFile(file, 'utf8')).instanceId === instanceId) return file;
  }
  throw new Error(`no local instance ${instanceId}`);
}
const edit = async (file: string, change: Record<string, unknown>) =>
  fs.writeFile(file, JSON.stringify({ ...JSON.parse(await fs.readFile(file, 'utf8')), ...change }));
const outcomes = (run: { steps: { changes: { outcome: string }[] }[] }) =>
  new Set(run.steps.flatMap((st) => st.changes.map((c) => c.outcome)));

describe('an ops person provisions a company and keeps it right', () => {
  it('initializes, re-runs, is shown the diff, moves, replaces a dead instance and sees drift of each kind', {
    timeout: 120_000,
  }, async () => {
    // 1. Initialize.
    const first = await cp().initialize(initializeBody(CELL, A()));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    await cp().finished(first.body.data);
    const initialized = await status();
    expect(initialized).toMatchObject({ status: 'completed', drift: { checked: true, count: 0, entries: [] } });
    expect(initialized.drift.instance).toEqual({ checked: true, state: 'running', error: null });

    // The run carries the company in typed search attributes: the Web UI filters by them.
    const client = svc.temporal!.client;
    const found = [];
    for await (const wf of client.workflow.list({ query: `SvcCellId = '${CELL}' AND SvcProvisioningPart = 'all'` })) found.push(wf);
    expect(found.map((wf) => wf.workflowId)).toEqual(['company-init:cell-journey']);
    expect(found[0]!.typedSearchAttributes.get(SVC_CELL_ID)).toBe(CELL);
    expect(found[0]!.typedSearchAttributes.get(SVC_PROVISIONING_PART)).toBe('all');
    // Registered at service start; registering again (the next worker start) adds nothing and fails nothing.
    expect(await ensureSearchAttributes(client, svc.temporal!.namespace)).toEqual([]);
    const none = [];
    for await (const wf of client.workflow.list({ query: `SvcCellId = 'cell-nobody'` })) none.push(wf);
    expect(none).toEqual([]);

    // Its steps are named by step and target in the history (the activity summaries the timeline
    // shows, sealed like every payload: the UI reads them through svc's codec endpoint).
    const history = await client.workflow.getHandle(first.body.data.workflowId, first.body.data.runId).fetchHistory();
    const sealed = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.userMetadata!.summary!);
    expect(sealed.every((p) => Buffer.from(p.metadata!.encoding!).toString() === 'binary/encrypted')).toBe(true);
    const summaries = (await svc.deps.payloadDecoder!.decode(sealed)).map((p) =>
      defaultPayloadConverter.fromPayload(p as (typeof sealed)[number]),
    );
    expect(summaries).toEqual([
      `begin all of ${CELL}`,
      'cloud-instance journey-main in eu-central-1',
      `instance-running ${initialized.server.instanceId}`,
      `folders in ${A()}`,
      `agent-profiles in ${A()}/agents`,
      'finish: completed',
    ]);

    // 2. The same parameters again: nothing changes, every step says reused.
    const again = await cp().initialize(initializeBody(CELL, A()));
    expect([again.status, again.body.data.record, again.body.data.changes]).toEqual([202, 'unchanged', []]);
    expect(new Set(again.body.data.plan.map((s: { action: string }) => s.action))).toEqual(new Set(['reuse']));
    await cp().finished(again.body.data);
    const reran = await status();
    expect(reran.runs[0].runId).toBe(again.body.data.runId);
    expect(outcomes(reran.runs[0])).toEqual(new Set(['reused']));

    // 3. Changed parameters: 409 with the diff, and nothing changed.
    const before = { company: reran.company, tree: await tree(A()), requests: await requests() };
    const moved = initializeBody(CELL, B(), { companyKey: 'voyage' });
    const refused = await cp().initialize(moved);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'conflict']);
    expect(refused.body.error.details.changes).toEqual([
      { field: 'companyKey', stored: 'journey', requested: 'voyage' },
      { field: 'rootPath', stored: A(), requested: B() },
    ]);
    expect((await status()).company).toEqual(before.company);
    expect(await tree(A())).toEqual(before.tree);
    await expect(fs.stat(B())).rejects.toThrow();
    expect(await requests()).toBe(before.requests);

    // 4. Asked for: the tree moves and the profiles are renamed.
    const move = await cp().initialize({ ...moved, apply: 'move' });
    expect([move.status, move.body.data.record]).toEqual([202, 'updated']);
    await cp().finished(move.body.data);
    await expect(fs.stat(A())).rejects.toThrow();
    expect(await tree(B())).toEqual(before.tree.map((e) => e.replace(/^agents\/journey-/, 'agents/voyage-')).sort());
    const afterMove = await status();
    expect(afterMove.company).toMatchObject({ companyKey: 'voyage', rootPath: B(), pendingMove: null });
    expect(afterMove.drift.count).toBe(0);

    // 5. The instance is terminated in the cloud: before any run, the status shows it and what to do.
    const dead = afterMove.server.instanceId;
    await edit(await instanceFile(dead), { state: 'terminated' });
    const deadView = await status();
    expect(deadView.drift.entries).toEqual([
      { kind: 'changed', target: 'instance', name: dead, path: '', detail: 'recorded running, the provider says terminated' },
    ]);
    expect(deadView.server.remedy).toMatch(
      /POST \/api\/v1\/control-plane\/companies\/cell-journey\/cloud-instance with \{"replace": true\}/,
    );

    // One documented call replaces it.
    const replaced = await svc.call('POST', `/api/v1/control-plane/companies/${CELL}/cloud-instance`, {
      body: { replace: true },
      headers: bearer(op),
    });
    expect([replaced.status, replaced.body.data?.replacing], JSON.stringify(replaced.body)).toEqual([202, dead]);
    await cp().finished(replaced.body.data);
    const alive = await status();
    expect(alive.server).toMatchObject({
      state: 'running',
      generation: 1,
      remedy: null,
      replaced: [{ instanceId: dead, state: 'terminated' }],
    });
    expect(alive.server.instanceId).not.toBe(dead);
    expect(alive.drift.count).toBe(0);

    // 6. Drift of each kind, on disk and at the provider.
    const profile = (role: string) => path.join(B(), 'agents', `voyage-${role}`);
    await fs.rmdir(path.join(B(), '04_product'));
    await fs.rm(profile('cmo'), { recursive: true });
    await fs.writeFile(path.join(profile('cto'), 'description.md'), 'edited by hand');
    await fs.rm(path.join(profile('clo'), 'description.md'));
    await fs.writeFile(path.join(B(), 'notes.txt'), 'x');
    await fs.mkdir(path.join(B(), 'agents', 'rogue'));
    await fs.rm(await instanceFile(alive.server.instanceId));
    const stray = {
      instanceId: 'i-0stray0000000000',
      state: 'running',
      address: '10.9.9.9',
      securityGroups: [],
      tags: { [CELL_TAG]: CELL },
    };
    await fs.writeFile(path.join(localCloud(), 'stray.json'), JSON.stringify(stray));
    const { drift } = await status();
    expect(drift.entries.map((e: { kind: string; target: string; name: string }) => [e.kind, e.target, e.name]).sort()).toEqual(
      [
        ['missing', 'folder', '04_product'],
        ['missing', 'profile', 'voyage-cmo'],
        ['changed', 'description', 'voyage-cto'],
        ['missing', 'description', 'voyage-clo'],
        ['unexpected', 'entry', 'notes.txt'],
        ['unexpected', 'entry', 'rogue'],
        ['missing', 'instance', alive.server.instanceId],
        ['unexpected', 'instance', stray.instanceId],
      ].sort(),
    );
    expect(drift.count).toBe(8);
    // The overview counts the same drift.
    const listed = await svc.call('GET', '/api/v1/control-plane/companies', { headers: bearer(op) });
    expect(listed.body.data.companies.find((c: { cellId: string }) => c.cellId === CELL)).toMatchObject({
      driftCount: 8,
      status: 'completed',
    });
  });
});
