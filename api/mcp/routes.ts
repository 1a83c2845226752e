import { z } from 'zod';
import { reachApp, targetOf } from '../../domain/apps/index.ts';
import { mcpPath } from '../../domain/oauth/index.ts';
import { AppParams } from '../../schemas/apps.ts';
import { OAUTH_SCOPE } from '../../schemas/oauth.ts';
import { defineRoute } from '../http/route.ts';

/** Headers the MCP transport reads; nothing else of the request reaches it. */
const MCP_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

export const mcpRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/apps/{namespace}/{slug}/mcp',
  operationId: 'callAppMcp',
  summary: 'The app as an MCP server (streamable HTTP, stateless, JSON replies): tools are its APIs, prompts its skills',
  description:
    'Body: one JSON-RPC message (or a batch). Tool names are the API names with dots replaced by a double underscore; write ' +
    'tools accept `preview`; with `x-svc-dry-run: true` a write tool starts nothing and answers `{dryRun: true, plan}`; `mcpUi` is the resource `ui://<namespace>/<slug>/<page>`. Credentials: an app token from the ' +
    'OAuth flow (`svc-ot-…`), a key of the company, or the app’s ticket. Without one: 401 with `WWW-Authenticate: Bearer ' +
    'resource_metadata="…/.well-known/oauth-protected-resource/…/mcp"`, where hosts find the authorization server.',
  tags: ['apps', 'oauth'],
  auth: 'credential',
  cors: {
    allowHeaders: ['mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
    exposeHeaders: ['www-authenticate', 'mcp-session-id'],
  },
  authChallenge(ctx, deps) {
    const app = AppParams.safeParse(ctx.params);
    if (!app.success) return 'Bearer';
    const metadata = `${deps.addresses().baseUrl}/.well-known/oauth-protected-resource${mcpPath(app.data)}`;
    return `Bearer resource_metadata="${metadata}", scope="${OAUTH_SCOPE}"`;
  },
  envelope: false,
  ownDryRun: true,
  params: AppParams,
  body: z.unknown().meta({ description: 'A JSON-RPC 2.0 message or batch (MCP).' }),
  response: { status: 200, description: 'The JSON-RPC reply (202 without a body for notifications).', schema: z.unknown() },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found', 'rate_limited'],
  async handler({ deps, principal, params, body, ctx, dryRun }) {
    const reached = await reachApp(deps, principal, targetOf(principal, params));
    const headers = Object.fromEntries(MCP_HEADERS.flatMap((name) => (ctx.get(name) ? [[name, ctx.get(name)]] : [])));
    const request = { url: `${deps.addresses().baseUrl}${ctx.path}`, headers, body };
    // Loaded on first use: the MCP SDK is about 10 MB of heap that a process without MCP callers never needs.
    const { answerMcp } = await import('./server.ts');
    const answer = await answerMcp(deps, principal, reached, request, { runWaitMs: deps.http.runStartWaitMs, dryRun });
    return { status: answer.status, data: answer.body };
  },
});

export const mcpRoutes = [mcpRoute];
