import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

// JSON lines are gathered into batches: none may be lost at exit, and a lone line must still go
// out while the process lives (the periodic flush), not wait for 4 KiB to gather.

const loggerModule = new URL('../../../infra/log/create-logger.ts', import.meta.url).pathname;

/** A child that logs `lines` lines, then ends as `how` says; its standard output, line by line. */
function child(how: 'exit' | 'throw' | 'return' | 'wait-for-stdin', lines: number) {
  const script = `
    const { createLogger } = await import(${JSON.stringify(loggerModule)});
    const logger = createLogger({ level: 'info', format: 'json' });
    for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
    const how = ${JSON.stringify(how)};
    if (how === 'exit') process.exit(3);
    if (how === 'throw') throw new Error('boom');
    if (how === 'wait-for-stdin') process.stdin.once('data', () => process.exit(0));
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  return { proc, lines: createInterface({ input: proc.stdout }) };
}

async function allLines(how: 'exit' | 'throw' | 'return', count: number): Promise<number[]> {
  const { proc, lines } = child(how, count);
  const seen: number[] = [];
  lines.on('line', (l) => seen.push(JSON.parse(l).i));
  await new Promise((resolve) => proc.once('close', resolve));
  return seen;
}

describe('createLogger (JSON)', () => {
  it.each(['exit', 'throw', 'return'] as const)('writes every gathered line when the process ends by %s', async (how) => {
    // 3 lines stay below a batch; 500 make several batches and a remainder.
    for (const count of [3, 500]) expect(await allLines(how, count)).toEqual([...Array(count).keys()]);
  });

  it('writes a lone line while the process lives, without waiting for a batch to fill', async () => {
    const { proc, lines } = child('wait-for-stdin', 1);
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    expect(proc.exitCode).toBeNull();
    expect(JSON.parse(first)).toMatchObject({ i: 0, msg: 'line', level: 30 });
    proc.stdin.write('done\n');
    await new Promise((resolve) => proc.once('close', resolve));
  });
});
