// Programmatic entry point: a Temporal server (WorkflowService, OperatorService, plus TestService
// in time-skipping mode) on a local port, in memory or with its state in a SQLite file.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { addService, type Handler } from './grpc-server.ts';
import { ServerState } from './namespaces.ts';
import { operatorServiceHandlers } from './operator-service.ts';
import type { Persistence } from './persistence.ts';
import { testServiceHandlers } from './test-service.ts';
import { workflowServiceHandlers } from './workflow-service.ts';

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
}

export interface TemporalDevServer {
  /** host:port to pass to Connection.connect / NativeConnection.connect. */
  address: string;
  port: number;
  state: ServerState;
  stop(): Promise<void>;
}

export { StateFileError } from './errors.ts';

/** Path of the `temporal-dev` executable, for launchers that take one (e.g. @temporalio/testing's `existing-path`). */
export const temporalDevExecutable = fileURLToPath(new URL('./bin/temporal-dev', import.meta.url));

const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

export async function startTemporalDevServer(options: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const host = options.host ?? '127.0.0.1';
  const timeSkipping = options.timeSkipping ?? false;
  if (options.dbFilename && timeSkipping) throw new Error('temporal-dev: a state file (dbFilename) is not supported with time skipping');
  const onError = options.onError ?? ((method, err) => console.error(`temporal-dev: ${method} failed`, err));
  const state = new ServerState({ timeSkipping });
  // Loaded only when asked for, so the memory-only server never touches node:sqlite.
  const persistence = options.dbFilename
    ? (await import('./persistence.ts')).openPersistence(options.dbFilename, state, (err) => onError('persistence', err))
    : undefined;
  for (const name of options.namespaces ?? ['default']) if (!state.namespaces.has(name)) state.register(name);
  for (const [name, type] of Object.entries(options.searchAttributes ?? {})) state.addSearchAttribute(name, type);
  persistence?.flush();

  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  addService(server, 'temporal.api.workflowservice.v1.WorkflowService', wrap(state, persistence, workflowServiceHandlers(state)), onError);
  addService(server, 'temporal.api.operatorservice.v1.OperatorService', wrap(state, persistence, operatorServiceHandlers(state)), onError);
  if (state.clock.timeSkipping) {
    addService(server, 'temporal.api.testservice.v1.TestService', wrap(state, persistence, testServiceHandlers(state)), onError);
  }
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${bindHost}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  ).catch((err: unknown) => {
    persistence?.close();
    throw err;
  });
  return {
    address: `${bindHost}:${port}`,
    port,
    state,
    stop: async () => {
      state.clock.stop();
      // Long polls would hold a graceful shutdown open; workers reconnecting is not our concern.
      server.forceShutdown();
      persistence?.close();
    },
  };
}

/**
 * With a state file, what an RPC changed is committed before it is answered. Any RPC can change
 * what is runnable, so the clock re-checks whether it may skip afterwards.
 */
function wrap(state: ServerState, persistence: Persistence | undefined, handlers: Record<string, Handler>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    out[name] = async (req, ctx) => {
      try {
        return await handler(req, ctx);
      } finally {
        if (persistence) await persistence.settle();
        state.clock.poke();
      }
    };
  }
  return out;
}
