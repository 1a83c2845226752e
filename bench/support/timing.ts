// Timing helpers shared by the benches: each prints medians against a baseline of the same run.

export async function time(fn: () => unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The median of `runs` timed calls of `fn`, after one to warm up. */
export async function medianOf(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await time(fn));
  return median(times);
}

/**
 * The median of each of `fns` over `runs` rounds that call every one in turn (after one round to
 * warm up), so a change in the machine's load while it runs weighs on all of them alike.
 */
export async function mediansAlternating(fns: readonly (() => Promise<unknown>)[], runs: number): Promise<number[]> {
  for (const fn of fns) await fn();
  const times = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++) for (const [j, fn] of fns.entries()) times[j]!.push(await time(fn));
  return times.map(median);
}
