import type { Command } from 'commander';
import { type Context, createContext } from './context.ts';

/**
 * A commander action with the command's context: the global options (--base-url, --api-key,
 * --json) wherever they were written, then the command's own arguments and options.
 */
export function withContext<A extends unknown[]>(run: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const ctx = await createContext(command.optsWithGlobals());
    await run(ctx, ...(args.slice(0, -1) as A));
  };
}
