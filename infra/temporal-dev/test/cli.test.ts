// The command line (bin/temporal-dev server start-dev ...): parsing, --help, and what the flags
// change in the running server, observed through the SDK's client, the HTTP API and stderr.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeToken } from '../common/tokens.ts';
import { temporalDevExecutable } from '../index.ts';
import { eventually, grpcError } from './helpers.ts';

const PERMISSION_DENIED = 7;
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

interface Launched {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
const connections: Connection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) await c.close();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function launch(args: string[]): Launched {
  const child = spawn(temporalDevExecutable, args, {
    env: { ...process.env, TEMPORAL_DEV_NODE: process.execPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Starts a dev server with `flags` and connects to it once it listens. */
async function devServer(flags: string[]): Promise<Launched & { connection: Connection; address: string }> {
  const launched = launch(['server', 'start-dev', '--port', '0', '--headless', ...flags]);
  const address = await Promise.race([
    eventually(async () => /listening on (\S+)/.exec(launched.stderr())?.[1], 20_000),
    launched.exited.then((code) => {
      throw new Error(`exited with ${code}: ${launched.stderr()}`);
    }),
  ]);
  const connection = await Connection.connect({ address, interceptors: [] });
  connections.push(connection);
  return { ...launched, connection, address };
}

const logLines = (stderr: string, level: string) => stderr.split('\n').filter((l) => l.includes(` level=${level} `));

describe('parsing', () => {
  it('prints the usage with --help and exits 0', async () => {
    const run = launch(['server', 'start-dev', '--help']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/^usage:/);
    for (const flag of [
      '--log-level',
      '--dynamic-config-value',
      '--db-filename',
      '--ui-port',
      '--http-port',
      '--headless',
      '--search-attribute',
    ]) {
      expect(run.stdout()).toContain(flag);
    }
  });

  it.each([
    [['--log-level', 'loud'], 'invalid log level "loud"'],
    [
      ['--dynamic-config-value', 'frontend.enableSchedules'],
      `invalid dynamic config values: missing expected '=' in "frontend.enableSchedules"`,
    ],
    [
      ['--dynamic-config-value', 'frontend.enableSchedules={'],
      'invalid dynamic config values: invalid JSON value for key "frontend.enableSchedules"',
    ],
    [['--search-attribute', 'Tier=Colour'], 'bad --search-attribute Tier=Colour'],
    [['--port', 'many'], 'bad port'],
  ])('refuses %j with exit status 2', async (flags, message) => {
    const run = launch(['server', 'start-dev', '--headless', ...flags]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(message);
  });
});

describe('flags at work', () => {
  it('applies dynamic config, namespaces, search attributes and the HTTP API; logs at debug what it does not use', async () => {
    const s = await devServer([
      '--ip',
      '127.0.0.1',
      '--log-level',
      'debug',
      '--namespace',
      'extra',
      '--search-attribute',
      'Tier=Keyword',
      '--http-port',
      '0',
      '--dynamic-config-value',
      'frontend.enableUpdateWorkflowExecution=false',
      '--dynamic-config-value',
      'frontend.enableSchedules=false',
      '--dynamic-config-value',
      'frontend.enableTokenNamespaceEnforcement=false',
      '--dynamic-config-value',
      'matching.longPollExpirationInterval="1s"',
      '--dynamic-config-value',
      'history.longPollExpirationInterval=1',
      '--dynamic-config-value',
      'some.unknownKey={"a":1}',
    ]);
    expect(s.address).toMatch(/^127\.0\.0\.1:/);
    const svc = s.connection.workflowService;
    const described = await svc.describeNamespace({ namespace: 'extra' });
    expect(described.namespaceInfo?.capabilities?.syncUpdate).toBe(false);
    expect(described.namespaceInfo?.supportsSchedules).toBe(false);
    const attributes = await s.connection.operatorService.listSearchAttributes({ namespace: 'extra' });
    expect(attributes.customAttributes?.Tier).toBe(temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);

    expect(await grpcError(svc.listScheduleMatchingTimes({ namespace: 'default', scheduleId: 'any' }))).toEqual({
      code: PERMISSION_DENIED,
      details: 'Schedules are disabled on this namespace.',
    });
    expect(
      await grpcError(
        svc.updateWorkflowExecution({ namespace: 'default', workflowExecution: { workflowId: 'w' }, request: { meta: { updateId: 'u' } } }),
      ),
    ).toEqual({ code: PERMISSION_DENIED, details: 'UpdateWorkflowExecution operation is disabled on this namespace.' });

    // Long polls end after the configured 1 s instead of 60 s / 20 s.
    let started = Date.now();
    const poll = await svc.pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: `empty-${randomUUID()}` } });
    expect(poll.taskToken?.length ?? 0).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    const workflowId = `w-${randomUUID()}`;
    const { runId } = await svc.startWorkflowExecution({
      namespace: 'default',
      workflowId,
      workflowType: { name: 'nobodyRunsThis' },
      taskQueue: { name: `nobody-${randomUUID()}` },
      requestId: randomUUID(),
    });
    const execution = { workflowId, runId };
    const first = await svc.getWorkflowExecutionHistory({ namespace: 'default', execution, waitNewEvent: true });
    expect(first.history?.events?.length).toBeGreaterThan(0);
    started = Date.now();
    const waited = await svc.getWorkflowExecutionHistory({
      namespace: 'default',
      execution,
      waitNewEvent: true,
      nextPageToken: first.nextPageToken,
    });
    expect(waited.history?.events ?? []).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);

    // Token enforcement off: a token of namespace "extra" is taken in "default" (and names no task there).
    const foreign = encodeToken({ boot: 'other-boot', namespace: 'extra', workflowId: 'w', runId: 'r', kind: 'at', id: 5, attempt: 1 });
    expect(await grpcError(svc.recordActivityTaskHeartbeat({ namespace: 'default', taskToken: foreign }))).toMatchObject({
      code: NOT_FOUND,
    });

    const httpUrl = /HTTP API on (\S+)/.exec(s.stderr())![1]!;
    const res = await fetch(`${httpUrl}/api/v1/namespaces/extra`);
    expect(res.status).toBe(200);

    expect(s.stderr()).not.toContain('Web UI on');
    const debug = logLines(s.stderr(), 'DEBUG');
    expect(debug.some((l) => l.includes('dynamic config keys this server does not use') && l.includes('some.unknownKey'))).toBe(true);
    expect(debug.some((l) => l.includes('msg=request') && l.includes('method=DescribeNamespace'))).toBe(true);
    expect(logLines(s.stderr(), 'INFO').some((l) => l.includes('frontend.enableSchedules'))).toBe(true);
  });

  it('logs warnings and errors only by default; a value of the wrong type is a warning and leaves the default', async () => {
    const s = await devServer(['--dynamic-config-value', 'frontend.enableSchedules="no"']);
    const described = await s.connection.workflowService.describeNamespace({ namespace: 'default' });
    expect(described.namespaceInfo?.supportsSchedules).toBe(true);
    expect(logLines(s.stderr(), 'WARN').some((l) => l.includes('key=frontend.enableSchedules'))).toBe(true);
    expect(logLines(s.stderr(), 'INFO')).toEqual([]);
    expect(logLines(s.stderr(), 'DEBUG')).toEqual([]);
  });

  it('logs nothing at --log-level never, and serves the Web UI on the port given', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    // A value of the wrong type would be a warning at the default level.
    const s = launch([
      'server',
      'start-dev',
      '--port',
      '0',
      '--ui-port',
      String(port),
      '--log-level',
      'never',
      '--dynamic-config-value',
      'frontend.enableSchedules=1',
    ]);
    await eventually(async () => s.stderr().includes('Web UI on'), 20_000);
    expect(s.stderr()).toContain(`Web UI on http://127.0.0.1:${port}`);
    const settings = await fetch(`http://127.0.0.1:${port}/api/v1/settings`);
    expect(settings.status).toBe(200);
    expect(s.stderr()).not.toMatch(/level=/);
  });
});

describe('token enforcement', () => {
  it('refuses a foreign token by default', async () => {
    const s = await devServer(['--namespace', 'extra']);
    const token = encodeToken({ boot: 'b', namespace: 'extra', workflowId: 'w', runId: 'r', kind: 'at', id: 5, attempt: 1 });
    expect(await grpcError(s.connection.workflowService.recordActivityTaskHeartbeat({ namespace: 'default', taskToken: token }))).toEqual({
      code: INVALID_ARGUMENT,
      details: 'Operation requested with a token from a different namespace.',
    });
  });
});
