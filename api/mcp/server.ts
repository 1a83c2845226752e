import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { appApisOf, runApi } from '../../domain/app-surface/index.ts';
import { executeWorkflowApiNow } from '../../domain/app-workflows/index.ts';
import type { HostedApp, HostedVersion } from '../../domain/apps/index.ts';
import type { DomainDeps } from '../../domain/deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { blobBytes } from '../../domain/hosting/index.ts';
import type { Principal } from '../../domain/principal.ts';
import { API_VERSION } from '../http/openapi.ts';

// One app as an MCP server (spec B, mcp): tools are its APIs (dots in names become double
// underscores; write tools take `preview`), prompts are its skills, and the manifest's `mcpUi`
// page is its UI resource. Stateless: a server and a transport per request, JSON replies.

/** The URI of the app's MCP UI resource. */
const uiUri = (app: HostedApp, page: string) => `ui://${app.namespace}/${app.slug}/${page}`;

/** How a request's tool calls run: how long a workflow tool call waits for its run (SVC_RUN_START_WAIT_MS), and whether it is a dry run. */
export interface ToolMode {
  runWaitMs: number;
  /** `x-svc-dry-run: true`: a write tool is checked (access, input) and answers its plan; nothing starts. */
  dryRun: boolean;
}

/** The workflow API as a tool: `preview` (or a dry run) answers the steps; otherwise the run, awaited up to `runWaitMs`. */
async function runWorkflowTool(
  deps: DomainDeps,
  principal: Principal,
  app: HostedApp,
  name: string,
  args: Record<string, unknown>,
  mode: ToolMode,
): Promise<Record<string, unknown>> {
  const { preview, ...input } = args;
  const outcome = await executeWorkflowApiNow(
    deps,
    principal,
    { namespace: app.namespace, slug: app.slug, name, input, preview: preview === true || mode.dryRun },
    mode.runWaitMs,
  );
  return mode.dryRun && 'plan' in outcome ? { dryRun: true, plan: { ...outcome.plan, wouldStart: { api: name, input } } } : outcome;
}

function appServer(deps: DomainDeps, principal: Principal, app: HostedApp, version: HostedVersion, mode: ToolMode): Server {
  const { manifest } = version;
  const ui = manifest.mcpUi ?? null;
  const server = new Server(
    { name: `${app.namespace}/${app.slug}`, title: manifest.title, version: API_VERSION },
    { capabilities: { tools: {}, prompts: {}, ...(ui ? { resources: {} } : {}) }, instructions: manifest.summary || manifest.title },
  );
  const apis = appApisOf(manifest, app);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: apis.map((api) => ({
      name: api.mcpTool,
      title: api.title,
      description: api.description || api.title,
      inputSchema: api.write
        ? { ...api.input, properties: { ...(api.input.properties as object), preview: { type: 'boolean' } } }
        : (api.input as { type: 'object' }),
      annotations: { readOnlyHint: !api.write },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const api = apis.find((a) => a.mcpTool === request.params.name);
    if (!api) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}.`);
    try {
      const args = request.params.arguments ?? {};
      const result =
        api.kind === 'workflow'
          ? await runWorkflowTool(deps, principal, app, api.name, args, mode)
          : await runApi(deps, principal, { app, version }, api.name, args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      // A failed call is the tool's answer (the host shows it to the model), not a protocol error.
      if (!(error instanceof DomainError)) throw error;
      const failure = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
      return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: failure };
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: version.skills.map((s) => ({ name: s.name, description: s.description })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const skill = version.skills.find((s) => s.name === request.params.name);
    if (!skill) throw new McpError(ErrorCode.InvalidParams, `No prompt ${request.params.name}.`);
    return { description: skill.description, messages: [{ role: 'user', content: { type: 'text', text: skill.content } }] };
  });

  if (ui) {
    const uri = uiUri(app, ui);
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{ uri, name: `${manifest.title} UI`, mimeType: 'text/html' }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const file = version.files.get(ui);
      if (request.params.uri !== uri || !file) throw new McpError(ErrorCode.InvalidParams, `No resource ${request.params.uri}.`);
      const text = (await blobBytes(deps, file.sha256)).toString('utf8');
      return { contents: [{ uri, mimeType: 'text/html', text }] };
    });
  }
  return server;
}

/** Answers one MCP POST for the app: the JSON-RPC reply (or 202 for notifications). */
export async function answerMcp(
  deps: DomainDeps,
  principal: Principal,
  reached: { app: HostedApp; version: HostedVersion },
  request: { url: string; headers: Record<string, string>; body: unknown },
  mode: ToolMode,
): Promise<{ status: number; body: unknown }> {
  const server = appServer(deps, principal, reached.app, reached.version, mode);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(
      new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) }),
      { parsedBody: request.body },
    );
    const text = await response.text();
    return { status: response.status, body: text === '' ? '' : JSON.parse(text) };
  } finally {
    await server.close();
  }
}
