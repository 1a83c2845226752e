import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The CLI as users run it: its bin (cli/svc.mjs) in a child process, against the test service.

export const SVC_BIN = path.resolve('cli/svc.mjs');

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** A home folder of its own (the stored login lives under its XDG config folder). */
export async function cliHome(): Promise<{ dir: string; env: Record<string, string>; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-cli-home-'));
  return {
    dir,
    // Nothing of the test runner's environment: no SVC_API_KEY, no display, no colour settings.
    env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config') },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export const storedLoginFile = (home: string) => path.join(home, 'config', 'svc', 'login.json');

/** Runs `svc <args>` to its end; stdin is /dev/null unless given. */
export function runSvc(args: string[], opts: { env: Record<string, string>; cwd?: string; stdin?: string }): Promise<CliRun> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    env: opts.env,
    cwd: opts.cwd,
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON document a `--json` run printed. */
export const jsonOf = (run: CliRun) => JSON.parse(run.stdout);
