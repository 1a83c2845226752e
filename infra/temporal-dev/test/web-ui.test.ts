// The real Temporal Web UI (built from @temporalio/ui) in a real Chromium, against a server that
// the SDK drives. Builds the UI first when `npm install` has not (about a minute, once).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/support/browser.ts';
import { createUiServer } from '../frontend/ui-server.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../index.ts';
import { buildUi, uiBuildCommand, uiBuildIsCurrent } from '../ui-build.ts';
import { eventually, sharedBundle } from './helpers.ts';
import { activityOrFail, greeting, parent, pinnedSteps, waitForever } from './workflows/index.ts';

let server: TemporalDevServer;
let worker: Worker;
let running: Promise<void>;
let browser: Browser;
let page: Page;
const taskQueue = 'web-ui';
const greetId = `greet-${randomUUID()}`;
const waitingId = `waiting-${randomUUID()}`;
const parentId = `parent-${randomUUID()}`;
const failedId = `failed-${randomUUID()}`;
let client: Client;
const failedOnce = new Set<string>();
const scheduleId = `hourly-${randomUUID()}`;
const deploymentName = `web-ui-deployment-${randomUUID()}`;
const versionedQueue = 'web-ui-versioned';
const versionedId = `versioned-${randomUUID()}`;
let versionedWorker: Worker;
let versionedRunning: Promise<void>;

beforeAll(async () => {
  if (!uiBuildIsCurrent()) await buildUi();
  server = await startTemporalDevServer({ uiPort: 0 });
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue,
    workflowBundle: await sharedBundle(),
    activities: {
      greet: async (name: string) => `Hello, ${name}!`,
      // Breaks on its first call per workflow: the run fails, and a reset run completes.
      flakyOnce: async () => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
        if (failedOnce.has(workflowId)) return 'fixed';
        failedOnce.add(workflowId);
        throw new Error('the first attempt breaks');
      },
    },
  });
  running = worker.run();
  await client.workflow.execute(greeting, { taskQueue, workflowId: greetId, args: ['Browser'] });
  await client.workflow.start(waitForever, { taskQueue, workflowId: waitingId });
  await client.workflow.execute(parent, { taskQueue, workflowId: parentId, args: ['Child'] });
  await client.workflow.execute(activityOrFail, { taskQueue, workflowId: failedId }).catch(() => undefined);
  await client.schedule.create({
    scheduleId,
    spec: { intervals: [{ every: '1h' }] },
    action: { type: 'startWorkflow', workflowType: greeting, taskQueue, args: ['Schedule'] },
  });
  // A versioned worker of a deployment whose current version runs a workflow.
  versionedWorker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue: versionedQueue,
    workflowBundle: await sharedBundle(),
    activities: { whoAmI: async () => 'b1' },
    workerDeploymentOptions: { version: { deploymentName, buildId: 'b1' }, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
  });
  versionedRunning = versionedWorker.run();
  // The version exists once the worker has polled.
  await eventually(() =>
    client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName, buildId: 'b1' }).then(
      () => true,
      () => false,
    ),
  );
  await client.workflow.execute(pinnedSteps, { taskQueue: versionedQueue, workflowId: versionedId, args: [0] });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  worker?.shutdown();
  versionedWorker?.shutdown();
  await running;
  await versionedRunning;
  await server?.stop();
});

const open = (path: string) => page.goto(`${server.uiUrl}${path}`);
/** SvelteKit's error page (the UI's `Error` component) says this; no page under test may show it. */
const errorPage = () => page.getByText("Uh oh. There's an error.");

describe('Web UI', () => {
  it('lists the workflow runs started through the SDK', async () => {
    await open('/');
    await page.waitForURL('**/namespaces/default/workflows');
    const row = page.getByRole('row').filter({ hasText: greetId });
    await row.getByText('Completed').waitFor();
    await page.getByRole('row').filter({ hasText: waitingId }).getByText('Running').waitFor();
  });

  it("shows a run's input, result and event history", async () => {
    await page.getByRole('link', { name: greetId }).click();
    await page.waitForURL(`**/workflows/${greetId}/*/history`);
    await page.getByRole('heading', { name: greetId }).waitFor();
    await page.getByText('"Browser"').first().waitFor(); // the input
    await page.getByText('"Hello, Browser!"').first().waitFor(); // the result
    await page.getByText('Workflow Execution Completed').first().waitFor();
    await page.getByText('Activity Task Scheduled').first().waitFor();
    // "View Raw History" (a link in the download menu) leads to the UI port's JSON of the events.
    const href = await page.locator('a[href$="/history.json"]').first().getAttribute('href');
    await open(href!);
    await page.waitForURL('**/api/v1/namespaces/default/workflows/*/run/*/history.json');
    const events = JSON.parse((await page.textContent('body')) ?? '') as { eventType: string }[];
    expect(events[0]!.eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
    expect(events.at(-1)!.eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it("opens every tab of a running workflow's page without an error page", async () => {
    await open(`/namespaces/default/workflows/${waitingId}`);
    await page.waitForURL(`**/workflows/${waitingId}/*/history`);
    for (const tab of ['Relationships', 'Workers', 'Pending Activities', 'Call Stack', 'Queries', 'Metadata']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.waitForURL(`**/${tab.toLowerCase().replace(' ', '-').replace('queries', 'query')}`);
      await page.getByRole('heading', { name: waitingId }).waitFor();
      expect(await errorPage().count()).toBe(0);
    }
    // The Workers tab lists the SDK worker polling the run's task queue.
    await page.getByRole('tab', { name: 'Workers' }).click();
    await page.getByRole('row').filter({ hasText: '@' }).first().waitFor();
  });

  it("draws a parent's tree on its Relationships tab, from the root and parent search attributes", async () => {
    const refused: string[] = [];
    const onResponse = (res: { status(): number; url(): string }) => {
      if (res.status() >= 400) refused.push(res.url());
    };
    page.on('response', onResponse);
    await open(`/namespaces/default/workflows/${parentId}`);
    await page.waitForURL(`**/workflows/${parentId}/*/history`);
    await page.getByRole('tab', { name: 'Relationships' }).click();
    await page.waitForURL('**/relationships');
    await page
      .getByRole('link', { name: `${parentId}-child` })
      .first()
      .waitFor();
    page.off('response', onResponse);
    expect(refused).toEqual([]);
  });

  it("resets a failed run from its page's Reset dialog, and the new run completes", async () => {
    const failed = await client.workflow.getHandle(failedId).describe();
    expect(failed.status.name).toBe('FAILED');
    await open(`/namespaces/default/workflows/${failedId}/${failed.runId}/history`);
    // The page renders the header twice (wide and narrow layouts); the visible one.
    await page.locator('[data-testid="workflow-reset-button"]:visible').click();
    const dialog = page.locator('[data-testid="reset-confirmation-modal"]:visible');
    await dialog.getByTestId('workflow-reset-event-id-select-button').click();
    await dialog
      .getByRole('option', { name: /WorkflowTaskCompleted/ })
      .first()
      .click();
    await dialog.locator('#reset-reason').fill('fixed the activity');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The workflow id's current run is the reset one, and it completes.
    const current = await eventually(async () => {
      const d = await client.workflow.getHandle(failedId).describe();
      return d.runId !== failed.runId && d;
    });
    expect(await client.workflow.getHandle(failedId, current.runId).result()).toBe('fixed');
    expect((await client.workflow.getHandle(failedId, failed.runId).describe()).raw.workflowExtendedInfo?.resetRunId).toBe(current.runId);
    expect(await errorPage().count()).toBe(0);
  });

  it('shows the namespaces and a namespace', async () => {
    await open('/namespaces');
    await page.getByRole('link', { name: 'default' }).click();
    await page.getByRole('heading', { name: 'Namespace: default' }).waitFor();
    await page.getByText('1 day').waitFor(); // the retention period
    await page.getByRole('cell', { name: 'WorkflowType' }).waitFor(); // a search attribute
  });

  it('lists a schedule under Schedules and opens its page', async () => {
    await open('/namespaces/default/schedules');
    // "Schedules" while the list loads, then the count: "1 Schedule".
    await page.getByRole('heading', { name: /^1 Schedule$/ }).waitFor();
    await page.getByRole('link', { name: scheduleId }).click();
    await page.waitForURL(`**/schedules/${scheduleId}`);
    await page.getByRole('heading', { name: scheduleId }).waitFor();
    await page.getByText('greeting').first().waitFor(); // the workflow type it starts
    expect(await errorPage().count()).toBe(0);
  });

  it('lists a worker deployment under Deployments and links a versioned run to it', async () => {
    await open('/namespaces/default/worker-deployments');
    await page.getByRole('link', { name: deploymentName }).click();
    await page.waitForURL(`**/worker-deployments/${deploymentName}`);
    await page.getByRole('heading', { name: deploymentName }).waitFor();
    await page.getByText('b1').first().waitFor(); // its version
    expect(await errorPage().count()).toBe(0);
    // The versioned run's page names its deployment and links to the deployment's page.
    await open(`/namespaces/default/workflows/${versionedId}`);
    await page.waitForURL(`**/workflows/${versionedId}/*/history`);
    await page.getByRole('link', { name: deploymentName }).first().click();
    await page.waitForURL(`**/worker-deployments/${deploymentName}`);
    await page.getByRole('heading', { name: deploymentName }).waitFor();
    expect(await errorPage().count()).toBe(0);
  });
});

describe('UI port', () => {
  it('serves the settings the UI waits on, with a UI version the path encoding depends on', async () => {
    const settings = (await (await fetch(`${server.uiUrl}/api/v1/settings`)).json()) as Record<string, any>;
    expect(settings.Auth.Enabled).toBe(false);
    expect(settings.DefaultNamespace).toBe('default');
    const [major, minor] = String(settings.Version).split('.').map(Number);
    expect(major! > 2 || (major === 2 && minor! >= 23)).toBe(true);
    // On: what the server implements (reset, activity commands); off: batch operations, workflow pause and the start page (not built).
    expect(settings).toMatchObject({
      WorkflowResetDisabled: false,
      ActivityCommandsDisabled: false,
      BatchActionsDisabled: true,
      WorkflowPauseDisabled: true,
    });
  });

  it('answers with a page that says how to build the UI when there is no build', async () => {
    const ui = createUiServer({
      services: {},
      onError: () => {},
      defaultNamespace: 'default',
      buildDir: join(mkdtempSync(join(tmpdir(), 'no-ui-')), 'build'),
    });
    await new Promise<void>((resolve) => ui.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = ui.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/namespaces/default/workflows`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain(uiBuildCommand);
      // The API still answers (with no services behind it here: UNIMPLEMENTED).
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/cluster-info`)).status).toBe(501);
    } finally {
      ui.close();
    }
  });
});
