import type { z } from 'zod';
import type { AppAbout } from '../../schemas/app-surface.ts';
import { type AppTarget, reachApp } from '../apps/index.ts';
import type { DomainDeps } from '../deps.ts';
import { aboutMarkdown, copyLine, describeAppPages } from '../hosting/index.ts';
import type { Principal } from '../principal.ts';

/** GET …/about: the same Markdown as `<address>/about.md`, and the one line to copy. */
export async function describeAbout(deps: DomainDeps, principal: Principal, target: AppTarget): Promise<z.input<typeof AppAbout>> {
  await reachApp(deps, principal, target);
  const pages = await describeAppPages(deps, target);
  return { markdown: aboutMarkdown(pages), copy: copyLine(pages) };
}
