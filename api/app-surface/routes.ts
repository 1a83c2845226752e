import { z } from 'zod';
import { describeAbout, describeCard, listAppApis } from '../../domain/app-surface/index.ts';
import { targetOf } from '../../domain/apps/index.ts';
import { AppAbout, AppApis, AppCard } from '../../schemas/app-surface.ts';
import { AppParams, Channel } from '../../schemas/apps.ts';
import { defineRoute } from '../http/route.ts';

// What an app offers to agents, hosts and catalogs (spec B). A key of the app's company or the
// app's own ticket; APIs and about follow the one access check for the channel asked.

const ChannelQuery = z.strictObject({
  channel: Channel.optional().meta({ description: 'Default production; a ticket always uses its own channel.' }),
});

export const appApisRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}/apis',
  operationId: 'listAppApis',
  summary: 'The app’s APIs (name, description, input JSON Schema, return, call route, MCP tool), skills and sample phrases',
  description:
    'The exports of the version the channel shows (workflow APIs join them with app workflows). 403 when the caller cannot open the app.',
  tags: ['apps'],
  auth: 'credential',
  params: AppParams,
  query: ChannelQuery,
  response: { status: 200, description: 'The app’s APIs.', schema: AppApis },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found'],
  handler: async ({ deps, principal, params, query }) => ({
    data: await listAppApis(deps, principal, targetOf(principal, { ...params, channel: query.channel })),
  }),
});

export const appAboutRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}/about',
  operationId: 'getAppAbout',
  summary: 'Agent-readable Markdown about the app and the one line to copy into an agent',
  tags: ['apps'],
  auth: 'credential',
  params: AppParams,
  query: ChannelQuery,
  response: { status: 200, description: 'The description.', schema: AppAbout },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found'],
  handler: async ({ deps, principal, params, query }) => ({
    data: await describeAbout(deps, principal, targetOf(principal, { ...params, channel: query.channel })),
  }),
});

export const appCardRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}/card',
  operationId: 'getAppCard',
  summary: 'The app card: owner, version, registered and used SDKs, data, exports and dependencies, access, 7-day use, spend',
  description:
    'Generated from the version shown (production, else the newest upload) and the app log. `spend` (this UTC month) only for ' +
    'developer keys of the company; null otherwise.',
  tags: ['apps'],
  auth: 'credential',
  params: AppParams,
  response: { status: 200, description: 'The card.', schema: AppCard },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await describeCard(deps, principal, params) }),
});

export const appSurfaceRoutes = [appApisRoute, appAboutRoute, appCardRoute];
