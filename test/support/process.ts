import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

// The service as its own process, started the way `npm start`, `npm run api` and `npm run worker` do.

export const ENTRY = path.resolve('main.ts');

export interface StartedProcess {
  child: ChildProcess;
  /** The first capture group of the ready pattern (the URL for the HTTP roles). */
  ready: string;
  output: () => string;
  exited: Promise<number | null>;
}

export interface ProcessHooks {
  /** Called at once with the child, so a caller can stop it even if it never gets ready. */
  spawned?: (child: ChildProcess, exited: Promise<number | null>) => void;
  /** Each chunk of its output, as it comes. */
  output?: (chunk: string) => void;
}

/** Spawns `node main.ts <args>` and resolves once its output matches `ready`. */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready = /svc listening on (http:\/\/\S+)/,
  hooks: ProcessHooks = {},
): Promise<StartedProcess> {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', PORT: '0', SVC_TEMPORAL_UI_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = exitCode(child);
  hooks.spawned?.(child, exited);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk;
      hooks.output?.(String(chunk));
      const m = ready.exec(out);
      if (m) resolve({ child, ready: m[1] ?? m[0], output: () => out, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

export function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}
