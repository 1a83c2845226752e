// Temporal's HTTP API: the JSON mapping of the gRPC services that Temporal's frontend serves with
// grpc-gateway. Routes come from the `google.api.http` annotations in the shipped descriptors;
// each call goes to the same in-process handler as the gRPC method.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { status } from '@grpc/grpc-js';
import { invalidArgument, ServiceError, unimplemented } from '../common/errors.ts';
import { lookupService, type Msg } from '../common/proto.ts';
import type { Handler } from './grpc-server.ts';
import { type JsonOptions, messageToJson, type PbMessageType, readMessageJson, setFieldPath, toHandlerForm, typeOf } from './proto-json.ts';

/** Handlers by gRPC service name, e.g. `temporal.api.workflowservice.v1.WorkflowService`. */
export type ServiceHandlers = Record<string, Record<string, Handler>>;

/** The services whose annotations are served (the ones Temporal's frontend registers). */
const HTTP_SERVICES = ['temporal.api.workflowservice.v1.WorkflowService', 'temporal.api.operatorservice.v1.OperatorService'];

/** Temporal's limit for HTTP API request bodies (gRPC's default message size). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

type Segment = { literal: string } | { field: string[] };

export interface HttpRoute {
  httpMethod: string;
  /** The path template as annotated, e.g. `/api/v1/namespaces/{namespace}/workflows/{execution.workflow_id}`. */
  template: string;
  service: string;
  method: string;
  /** `*` (the whole request), a field name, or undefined (query parameters). */
  body: string | undefined;
  segments: Segment[];
  requestType: PbMessageType;
  responseType: PbMessageType;
}

interface HttpRule {
  get?: string;
  post?: string;
  put?: string;
  delete?: string;
  patch?: string;
  body?: string;
  additional_bindings?: HttpRule | HttpRule[];
}

/** Every HTTP binding of the served services, read from their `google.api.http` options. */
export function httpRoutes(): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const serviceName of HTTP_SERVICES) {
    for (const method of Object.values(lookupService(serviceName).methods)) {
      const rule = (method.parsedOptions ?? []).find((o) => o['(google.api.http)'])?.['(google.api.http)'] as HttpRule | undefined;
      if (!rule) continue;
      method.resolve();
      const extra = rule.additional_bindings;
      for (const binding of [rule, ...(Array.isArray(extra) ? extra : extra ? [extra] : [])]) {
        const verb = (['get', 'post', 'put', 'delete', 'patch'] as const).find((v) => binding[v] !== undefined)!;
        const template = binding[verb]!;
        routes.push({
          httpMethod: verb.toUpperCase(),
          template,
          service: serviceName,
          method: method.name,
          body: binding.body || undefined,
          segments: parseTemplate(template),
          requestType: method.resolvedRequestType as unknown as PbMessageType,
          responseType: method.resolvedResponseType as unknown as PbMessageType,
        });
      }
    }
  }
  // The most literal template wins where two could match (none of Temporal's do today).
  return routes.sort((a, b) => literals(b) - literals(a));
}

const literals = (r: HttpRoute) => r.segments.filter((s) => 'literal' in s).length;

function parseTemplate(template: string): Segment[] {
  return template
    .slice(1)
    .split('/')
    .map((part) => {
      const m = /^\{([a-zA-Z0-9_.]+)\}$/.exec(part);
      if (m) return { field: m[1]!.split('.') };
      if (part.includes('{') || part.includes('*')) throw new Error(`unsupported path template ${template}`);
      return { literal: part };
    });
}

export interface HttpApiOptions {
  /** Shorthand payloads unless the caller opts out (Temporal's frontend); false: always full proto JSON (Temporal's UI server). */
  payloadShorthand: boolean;
  onError: (method: string, err: unknown) => void;
}

export type HttpApi = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A request handler serving every annotated route with `services`; anything else answers 404 in the API's error form. */
export function createHttpApi(services: ServiceHandlers, options: HttpApiOptions): HttpApi {
  const routes = httpRoutes();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const accept = req.headers.accept ?? '';
    const pretty = url.searchParams.has('pretty') || accept.includes('+pretty');
    const json: JsonOptions = {
      payloadShorthand: options.payloadShorthand && !url.searchParams.has('noPayloadShorthand') && !accept.includes('no-payload-shorthand'),
    };
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    let methodName = '';
    try {
      const parts = url.pathname.slice(1).split('/');
      const matching = routes.filter((r) => matchPath(r, parts) !== undefined);
      const route = matching.find((r) => r.httpMethod === req.method);
      if (!route) {
        // grpc-gateway's answers when no route matches, or only with another method.
        throw matching.length > 0
          ? new ServiceError(status.UNIMPLEMENTED, 'Method Not Allowed')
          : new ServiceError(status.NOT_FOUND, 'Not Found');
      }
      methodName = route.method;
      const request = await buildRequest(route, req, url, matchPath(route, parts)!, json);
      const handler = services[route.service]?.[route.method];
      if (!handler) throw unimplemented(`method ${route.method} is not implemented by temporal-dev`);
      const response = await handler(request, { signal: controller.signal });
      send(res, 200, messageToJson(route.responseType, response, json), pretty);
    } catch (err) {
      if (!(err instanceof ServiceError)) options.onError(methodName || `${req.method} ${url.pathname}`, err);
      const [code, body] = errorBody(err, json);
      send(res, code, body, pretty);
    }
  };
}

/** Path variables of `route` for the path's segments, or undefined when it does not match. */
function matchPath(route: HttpRoute, parts: string[]): Map<string[], string> | undefined {
  if (parts.length !== route.segments.length) return undefined;
  const vars = new Map<string[], string>();
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i]!;
    if ('literal' in seg) {
      if (seg.literal !== parts[i]) return undefined;
    } else {
      // Segments are split before decoding, so an id may contain an encoded "/".
      let value: string;
      try {
        value = decodeURIComponent(parts[i]!);
      } catch {
        return undefined;
      }
      if (value === '') return undefined;
      vars.set(seg.field, value);
    }
  }
  return vars;
}

async function buildRequest(
  route: HttpRoute,
  req: IncomingMessage,
  url: URL,
  vars: Map<string[], string>,
  json: JsonOptions,
): Promise<Msg> {
  const type = route.requestType;
  let request: Msg = {};
  if (route.body) {
    const text = await readBody(req);
    const parsed = text.trim() === '' ? {} : parseJson(text);
    request = readMessageJson(type, route.body === '*' ? parsed : { [route.body]: parsed }, json);
  }
  const bound = [...vars.keys()].map((path) => path.join('.'));
  if (route.body !== '*') {
    // Query parameters fill the remaining fields; unknown names are ignored, as grpc-gateway does.
    const names = new Set(url.searchParams.keys());
    for (const name of names) {
      const path = name.split('.');
      if (route.body && path[0] === route.body) continue;
      if (bound.some((b) => b === name || camel(b) === camel(name))) continue;
      setFieldPath(type, request, path, url.searchParams.getAll(name), json);
    }
  }
  // Path variables last: they override the body, as in grpc-gateway.
  for (const [path, value] of vars) setFieldPath(type, request, path, [value], json);
  return toHandlerForm(type, request);
}

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalidArgument(`request body is not JSON: ${(err as Error).message}`);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw invalidArgument(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** grpc-gateway's HTTPStatusFromCode. */
const HTTP_STATUS: Record<number, number> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
};

/** The google.rpc.Status JSON that Temporal writes for a failed call, and its HTTP status. */
function errorBody(err: unknown, json: JsonOptions): [number, unknown] {
  const e = err instanceof ServiceError ? err : new ServiceError(status.INTERNAL, err instanceof Error ? err.message : String(err));
  const body: Msg = { code: e.code, message: e.message };
  if (e.detail) {
    const detail = messageToJson(typeOf(e.detail.typeName), e.detail.value, json) as Msg;
    body.details = [{ '@type': `type.googleapis.com/${e.detail.typeName}`, ...detail }];
  }
  return [HTTP_STATUS[e.code] ?? 500, body];
}

function send(res: ServerResponse, code: number, body: unknown, pretty: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body, null, pretty ? 2 : undefined);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
