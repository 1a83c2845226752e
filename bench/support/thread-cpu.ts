// CPU time of this process by thread name (Linux: /proc/self/task/*/stat), to say which part of a
// process spends it: the main thread (`node`), worker threads, libuv's pool, V8's helpers, the
// Temporal SDK core's Rust threads. On a shared machine, CPU per unit of work moves far less with
// the load than throughput does.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on every Linux the project runs on

/** `pid (comm) state ...`: the name, and CPU ms (user + system); undefined once the task is gone. */
function taskStat(file: string): { name: string; ms: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // comm may hold spaces and parentheses: split at the last `)`.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, close).replace(/[-\d]+$/, '') || 'thread',
    ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
  };
}

/** CPU milliseconds (user + system) by thread name; empty where /proc is not there. */
export function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    const task = taskStat(`/proc/self/task/${tid}/stat`);
    if (task) byName.set(task.name, (byName.get(task.name) ?? 0) + task.ms);
  }
  return byName;
}

/** CPU milliseconds of these processes together (e.g. PostgreSQL's backends), those still there. */
export function processesCpu(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (taskStat(`/proc/${pid}/stat`)?.ms ?? 0), 0);
}

/** `after - before` by thread name, per `per` units of work, largest first, as `name ms` pairs. */
export function cpuPer(before: Map<string, number>, after: Map<string, number>, per: number): [string, number][] {
  return [...after]
    .map(([name, ms]): [string, number] => [name, (ms - (before.get(name) ?? 0)) / per])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}
