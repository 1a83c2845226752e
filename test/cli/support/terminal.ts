import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { SVC_BIN } from './cli.ts';

// A real pseudo-terminal for the prompts: tmux (Debian's package) runs `svc` in a detached
// session; the test reads the screen and types keys as a person would.

const exec = promisify(execFile);
let sessions = 0;

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export class Terminal {
  private readonly socket: string;

  private constructor(socket: string) {
    this.socket = socket;
  }

  /** Starts `svc <args>` in a terminal of 120 x 40 with exactly `env`; `svc` is the program and its first arguments. */
  static async start(
    args: string[],
    env: Record<string, string>,
    scratch: string,
    svc: readonly string[] = [process.execPath, SVC_BIN],
  ): Promise<Terminal> {
    sessions += 1;
    const socket = `svc-test-${process.pid}-${sessions}`;
    const script = path.join(scratch, `${socket}.sh`);
    // `env -i`: the tmux server hands its own environment (the test runner's, e.g. CI=true, which
    // turns colour off) to the shell; the command must see exactly `env`.
    const vars = Object.entries({ ...env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v}`);
    // The exit code is printed after the command, and the shell stays so the screen can be read.
    const run = ['env', '-i', ...vars, ...svc, ...args].map(quote).join(' ');
    await writeFile(script, ['#!/bin/sh', run, 'echo "[exit $?]"', 'sleep 600', ''].join('\n'), {
      mode: 0o700,
    });
    await exec('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '40', '-s', 'main', script]);
    return new Terminal(socket);
  }

  /** The screen's text (with colour escapes when `escapes`). */
  async screen(escapes = false): Promise<string> {
    const { stdout } = await exec('tmux', [
      '-L',
      this.socket,
      'capture-pane',
      '-p',
      '-J',
      ...(escapes ? ['-e'] : []),
      '-t',
      'main',
      '-S',
      '-200',
    ]);
    return stdout;
  }

  /** Waits until the screen matches (the test's own timeout bounds the wait). */
  async waitFor(pattern: RegExp, escapes = false): Promise<string> {
    for (;;) {
      const text = await this.screen(escapes);
      if (pattern.test(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The command's exit code, once it ended. */
  async exitCode(): Promise<number> {
    const text = await this.waitFor(/\[exit \d+\]/);
    return Number(/\[exit (\d+)\]/.exec(text)![1]);
  }

  async type(text: string): Promise<void> {
    await exec('tmux', ['-L', this.socket, 'send-keys', '-t', 'main', '-l', text]);
  }

  async press(...keys: string[]): Promise<void> {
    await exec('tmux', ['-L', this.socket, 'send-keys', '-t', 'main', ...keys]);
  }

  async close(): Promise<void> {
    await exec('tmux', ['-L', this.socket, 'kill-server']).catch(() => undefined);
  }
}
