// The Web UI port, in the role of Temporal's UI server: the built single-page app (every unknown
// path falls back to index.html), /api/v1/settings, the raw history download, and the HTTP API's
// /api/v1 routes on the same origin. Without a build it answers with a page that says how to build one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import type { Msg } from '../common/proto.ts';
import { uiBuildCommand, uiBuildDir, uiVersion } from '../ui-build.ts';
import { createHttpApi, type ServiceHandlers } from './http-api.ts';
import { messageToJson, typeOf } from './proto-json.ts';

export interface UiServerOptions {
  services: ServiceHandlers;
  onError: (method: string, err: unknown) => void;
  defaultNamespace: string;
  /** The codec server the UI decodes payloads with (`Codec.Endpoint`), sent the browser's cookies; none when unset. */
  codecEndpoint?: () => string | undefined;
  /** The built app (default: ui/build). */
  buildDir?: string;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** An HTTP server (not yet listening) for the Web UI. */
export function createUiServer(options: UiServerOptions): Server {
  const settings = () => JSON.stringify(uiSettings(options.defaultNamespace, options.codecEndpoint?.()));
  const buildDir = options.buildDir ?? uiBuildDir;
  // The UI reads full proto JSON payloads (no shorthand), as from Temporal's UI server.
  const api = createHttpApi(options.services, { payloadShorthand: false, onError: options.onError });
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const rawHistory = RAW_HISTORY.exec(path);
    if (path === '/api/v1/settings') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(settings());
    } else if (rawHistory && req.method === 'GET') {
      const [namespace, workflowId, runId] = rawHistory.slice(1).map(decodeURIComponent) as [string, string, string];
      sendRawHistory(options.services, { namespace, execution: { workflowId, runId } }, res).catch((err: unknown) => {
        options.onError('raw history', err);
        res.destroy();
      });
    } else if (path.startsWith('/api/')) {
      void api(req, res);
    } else {
      serveFile(req, res, buildDir, path);
    }
  });
}

/**
 * The settings Temporal's UI server hands the UI (same PascalCase keys). Version: the UI's own,
 * as the UI server reports it (below 2.23.0 the UI would encode path parameters twice). Actions
 * whose RPCs temporal-dev does not implement, and the start-workflow page that is not built, are
 * turned off so the UI hides them.
 */
function uiSettings(defaultNamespace: string, codecEndpoint: string | undefined) {
  return {
    Auth: { Enabled: false, Options: null },
    DefaultNamespace: defaultNamespace,
    ShowTemporalSystemNamespace: false,
    NavCollapsedByDefault: false,
    FeedbackURL: '',
    DisableNewsFetch: true,
    Codec: {
      Endpoint: codecEndpoint ?? '',
      PassAccessToken: false,
      IncludeCredentials: codecEndpoint !== undefined,
      DefaultErrorMessage: '',
      DefaultErrorLink: '',
    },
    Version: uiVersion(),
    DisableWriteActions: false,
    WorkflowTerminateDisabled: false,
    WorkflowCancelDisabled: false,
    WorkflowSignalDisabled: false,
    WorkflowUpdateDisabled: false,
    WorkflowResetDisabled: false,
    WorkflowPauseDisabled: true,
    BatchActionsDisabled: true,
    StartWorkflowDisabled: true,
    HideWorkflowQueryErrors: false,
    RefreshWorkflowCountsDisabled: false,
    ActivityCommandsDisabled: false,
  };
}

/** The UI server's own route for "View Raw History" (not a gRPC-gateway route). */
const RAW_HISTORY = /^\/api\/v1\/namespaces\/([^/]+)\/workflows\/([^/]+)\/run\/([^/]+)\/history\.json$/;
const HISTORY_EVENT = typeOf('temporal.api.history.v1.HistoryEvent');

/** All events of a run as one JSON array (proto JSON, full payloads), page by page. */
async function sendRawHistory(services: ServiceHandlers, request: Msg, res: ServerResponse): Promise<void> {
  const getHistory = services['temporal.api.workflowservice.v1.WorkflowService']!.GetWorkflowExecutionHistory!;
  const signal = new AbortController().signal;
  const events: unknown[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await getHistory({ ...request, nextPageToken }, { signal });
    for (const event of page.history?.events ?? []) events.push(messageToJson(HISTORY_EVENT, event, { payloadShorthand: false }));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(events));
}

function serveFile(req: IncomingMessage, res: ServerResponse, buildDir: string, path: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const index = join(buildDir, 'index.html');
  if (!existsSync(index)) {
    res.writeHead(503, { 'content-type': 'text/html; charset=utf-8' });
    res.end(notBuiltPage(buildDir));
    return;
  }
  let file = index;
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = undefined;
  }
  if (decoded !== undefined) {
    const candidate = normalize(join(buildDir, decoded));
    // Only files inside the build; anything else is a client-side route of the app.
    if (candidate.startsWith(buildDir + sep) && existsSync(candidate) && statSync(candidate).isFile()) file = candidate;
  }
  const immutable = file.startsWith(join(buildDir, '_app', 'immutable') + sep);
  res.writeHead(200, {
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : readFileSync(file));
}

function notBuiltPage(buildDir: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Temporal Web UI not built</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>The Temporal Web UI is not built</h1>
<p>temporal-dev serves Temporal's Web UI from <code>${buildDir}</code>, which is missing.
<code>npm install</code> at the repository root builds it; to build it now, run</p>
<pre>${uiBuildCommand}</pre>
<p>at the repository root (it needs the npm registry and takes about a minute), then reload this page.
The server itself, its gRPC API and the HTTP API under <code>/api/v1</code> work without it.</p>
</body></html>
`;
}
