// Programmatic entry point: a Temporal server (WorkflowService, OperatorService, plus TestService
// in time-skipping mode) on a local port, in memory or with its state in a SQLite file, optionally
// with Temporal's HTTP API and Web UI.
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { checkEnabled, DynamicConfig } from './common/dynamic-config.ts';
import { ServiceError } from './common/errors.ts';
import type { Limits } from './common/limits.ts';
import { Logger, type LogLevel } from './common/log.ts';
import { addService, type Handler } from './frontend/grpc-server.ts';
import { createHttpApi, type ServiceHandlers } from './frontend/http-api.ts';
import { namespaceChecks } from './frontend/namespace-validator.ts';
import { operatorServiceHandlers } from './frontend/operator-service.ts';
import { testServiceHandlers } from './frontend/test-service.ts';
import { createUiServer } from './frontend/ui-server.ts';
import { workflowServiceHandlers } from './frontend/workflow-service.ts';
import { ServerState } from './namespace/registry.ts';
import type { Persistence } from './persistence/persistence.ts';

export interface TemporalDevServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Java-test-server style virtual time with TestService (default false: dev-server behaviour). */
  timeSkipping?: boolean;
  /** Namespaces created at startup (default ["default"]). */
  namespaces?: string[];
  /** Custom search attributes to pre-register: name -> IndexedValueType number. */
  searchAttributes?: Record<string, number>;
  /**
   * SQLite file that keeps all state across restarts (created if missing, loaded if present; see
   * persistence.ts). Unset: memory only. Not with timeSkipping (virtual time is not kept).
   */
  dbFilename?: string;
  /** Called for unexpected handler errors (default: log to stderr). */
  onError?: (method: string, err: unknown) => void;
  /** Serve Temporal's HTTP API (JSON over HTTP/1.1) on this port (0 picks a free one); default: not served. */
  httpPort?: number;
  /** Serve the Temporal Web UI (and its /api/v1) on this port (0 picks a free one); default: not served. */
  uiPort?: number;
  /**
   * The Web UI's codec server (its settings' `Codec.Endpoint`, asked on every page load, so it may be
   * known only after start), called with the browser's cookies (`IncludeCredentials`).
   */
  uiCodecEndpoint?: () => string | undefined;
  /** What the server logs on stderr (default warn, as Temporal's dev server). */
  logLevel?: LogLevel;
  /** Dynamic config values by key, as `--dynamic-config-value KEY=JSON` gives them (see dynamic-config.ts). */
  dynamicConfig?: Record<string, unknown>;
  /** Size limits other than Temporal's defaults (limits.ts; the CLI's --dynamic-config-value). */
  limits?: Partial<Limits>;
}

export interface TemporalDevServer {
  /** host:port to pass to Connection.connect / NativeConnection.connect. */
  address: string;
  port: number;
  /** `http://host:port` of the HTTP API, when `httpPort` was given. */
  httpUrl: string | undefined;
  /** `http://host:port` of the Web UI, when `uiPort` was given. */
  uiUrl: string | undefined;
  state: ServerState;
  /** With a state file: writes a consistent copy of it to `file` (which must not exist); see Persistence.copyTo. */
  copyStateTo: ((file: string) => void) | undefined;
  stop(): Promise<void>;
}

export { StateFileError } from './common/errors.ts';

/** Path of the `temporal-dev` executable, for launchers that take one (e.g. @temporalio/testing's `existing-path`). */
export const temporalDevExecutable = fileURLToPath(new URL('./bin/temporal-dev', import.meta.url));

/** Temporal's frontend takes gRPC's default 4 MiB requests; its answers are not limited. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

export async function startTemporalDevServer(options: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const host = options.host ?? '127.0.0.1';
  const timeSkipping = options.timeSkipping ?? false;
  if (options.dbFilename && timeSkipping) throw new Error('temporal-dev: a state file (dbFilename) is not supported with time skipping');
  const log = new Logger(options.logLevel);
  const onError = options.onError ?? ((method, err) => log.error('request failed', { method, error: err }));
  const state = new ServerState({
    timeSkipping,
    log,
    dynamicConfig: new DynamicConfig(options.dynamicConfig, log),
    limits: options.limits,
  });
  // Loaded only when asked for, so the memory-only server never touches node:sqlite.
  const persistence = options.dbFilename
    ? (await import('./persistence/persistence.ts')).openPersistence(options.dbFilename, state, (err) => onError('persistence', err))
    : undefined;
  const namespaces = options.namespaces ?? ['default'];
  for (const name of namespaces) if (!state.namespaces.has(name)) state.register(name);
  for (const [name, type] of Object.entries(options.searchAttributes ?? {})) state.addSearchAttribute(name, type);
  persistence?.flush();

  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    'grpc.max_send_message_length': MAX_RESPONSE_BYTES,
  });
  // One set of handlers per service, served over gRPC and (where annotated) over HTTP alike.
  const workflowService = 'temporal.api.workflowservice.v1.WorkflowService';
  const operatorService = 'temporal.api.operatorservice.v1.OperatorService';
  const services: ServiceHandlers = {
    [workflowService]: wrap(state, persistence, workflowService, workflowServiceHandlers(state)),
    [operatorService]: wrap(state, persistence, operatorService, operatorServiceHandlers(state)),
  };
  if (state.clock.timeSkipping) {
    const testService = 'temporal.api.testservice.v1.TestService';
    services[testService] = wrap(state, persistence, testService, testServiceHandlers(state));
  }
  for (const [name, handlers] of Object.entries(services)) addService(server, name, handlers, onError);
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const http: Server[] = [];
  const stopAll = () => {
    state.clock.stop();
    // Long polls would hold a graceful shutdown open; workers reconnecting is not our concern.
    server.forceShutdown();
    for (const h of http) h.close();
    for (const h of http) h.closeAllConnections();
    persistence?.close();
  };
  try {
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${bindHost}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    let httpUrl: string | undefined;
    if (options.httpPort !== undefined) {
      const api = createHttpApi(services, { payloadShorthand: true, onError });
      const h = createServer((req, res) => void api(req, res));
      httpUrl = `http://${bindHost}:${await listen(h, host, options.httpPort)}`;
      http.push(h);
    }
    let uiUrl: string | undefined;
    if (options.uiPort !== undefined) {
      const h = createUiServer({ services, onError, defaultNamespace: namespaces[0]!, codecEndpoint: options.uiCodecEndpoint });
      uiUrl = `http://${bindHost}:${await listen(h, host, options.uiPort)}`;
      http.push(h);
    }
    const copyStateTo = persistence ? (file: string) => persistence.copyTo(file) : undefined;
    return { address: `${bindHost}:${port}`, port, httpUrl, uiUrl, state, copyStateTo, stop: async () => stopAll() };
  } catch (err) {
    stopAll();
    throw err;
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * Runs Temporal's frontend checks (namespace, features turned off) before each handler. With a
 * state file, what an RPC changed is committed before it is answered. Any RPC can change what is
 * runnable, so the clock re-checks whether it may skip afterwards.
 */
function wrap(
  state: ServerState,
  persistence: Persistence | undefined,
  serviceName: string,
  handlers: Record<string, Handler>,
): Record<string, Handler> {
  const checks = namespaceChecks(state, serviceName);
  const out: Record<string, Handler> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    const check = checks.get(name);
    out[name] = async (req, ctx) => {
      try {
        check?.(req);
        checkEnabled(state.dynamicConfig, name, req);
        const res = await handler(req, ctx);
        state.log.debug('request', { method: name, namespace: req.namespace || undefined });
        return res;
      } catch (err) {
        if (err instanceof ServiceError) state.log.debug('request refused', { method: name, code: err.code, error: err.message });
        throw err;
      } finally {
        if (persistence) await persistence.settle();
        state.clock.poke();
      }
    };
  }
  return out;
}
