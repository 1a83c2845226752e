import type { z } from 'zod';
import { type AppApi, type AppApis, exportInputSchema, exportResultSchema, mcpToolName } from '../../schemas/app-surface.ts';
import type { Manifest } from '../../schemas/manifest/index.ts';
import { workflowApisOf } from '../app-workflows/index.ts';
import { type AppTarget, reachApp } from '../apps/index.ts';
import type { DomainDeps } from '../deps.ts';
import type { Principal } from '../principal.ts';

/** The APIs a manifest declares: its exports (queries: reads), then its workflow as `run`. */
export function appApisOf(manifest: Manifest, app: { namespace: string; slug: string }): AppApi[] {
  const exports = manifest.exports.map((item) => ({
    name: item.name,
    title: item.title,
    description: item.description,
    kind: item.kind,
    write: false,
    input: exportInputSchema(item),
    returns: exportResultSchema(item),
    route: `/api/v1/developer/apps/${app.namespace}/${app.slug}/apis/${item.name}/execute`,
    mcpTool: mcpToolName(item.name),
  }));
  return [...exports, ...workflowApisOf(manifest, app)];
}

/** GET …/apis: the APIs, skills and sample phrases of the version the caller's channel shows. */
export async function listAppApis(deps: DomainDeps, principal: Principal, target: AppTarget): Promise<z.input<typeof AppApis>> {
  const { app, version } = await reachApp(deps, principal, target);
  const ref = { namespace: app.namespace, slug: app.slug };
  return {
    app: ref,
    channel: target.channel,
    version: version.version,
    apis: appApisOf(version.manifest, ref),
    skills: version.skills.map((s) => ({ name: s.name, description: s.description })),
    examples: version.manifest.examples,
  };
}
