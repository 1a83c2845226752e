import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { temporalWorkflowGateway } from '../../worker/workflow-gateway.ts';

describe('workflow gateway', () => {
  it('gives up on an unreachable Temporal within its deadline and logs, without failing the caller', async () => {
    const lines: { what?: string; msg?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // Nothing listens on port 1: every call fails; without a deadline the SDK retries for ~20 s.
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const gateway = temporalWorkflowGateway(client, logger);
    await expect(gateway.deviceLoginStarted('dev_x', new Date(Date.now() + 60_000))).resolves.toBeUndefined();
    await expect(gateway.deviceLoginClosed('dev_x', 'redeemed')).resolves.toBeUndefined();
    expect(lines.map((l) => l.what)).toEqual(['start deviceLoginExpiry', 'signal deviceLoginClosed']);
  }, 10_000);
});
