import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/** What the thread is started with (its workerData). */
export interface EmbeddedTemporalSettings {
  namespace: string;
  stateFile: string;
  /** 0: a free port; undefined: no Web UI. */
  uiPort: number | undefined;
}

export type ToThread =
  | { kind: 'codecEndpoint'; url: string | undefined }
  | { kind: 'copyState'; id: number; file: string }
  | { kind: 'stop' };

export type FromThread =
  | { kind: 'started'; address: string; uiUrl: string | undefined }
  | { kind: 'failed'; message: string }
  | { kind: 'copied'; id: number; error?: string };

export interface EmbeddedTemporal {
  address: string;
  uiUrl: string | undefined;
  /** The Web UI's codec endpoint from now on (svc's own is known once its HTTP server listens). */
  setUiCodecEndpoint(url: string | undefined): void;
  /** Writes a consistent copy of the state file to `file` (a backup). */
  copyStateTo(file: string): Promise<void>;
  /** Stops the server and waits for its thread to end (the state file is closed then). */
  stop(): Promise<void>;
}

/**
 * The project's own Temporal server (`@svc/temporal-dev`) on a worker thread of this process: its
 * request handling, SQLite writes and gRPC no longer share the event loop of the worker's SDK
 * side and its activities, so on two cores each gets one (process model: docs/operators/temporal.md).
 */
export async function startEmbeddedTemporal(settings: EmbeddedTemporalSettings, logger: Logger): Promise<EmbeddedTemporal> {
  // `name` is the thread's name in `top -H` and /proc (bench/support/thread-cpu.ts).
  const thread = new Worker(new URL('./embedded-temporal-thread.ts', import.meta.url), { workerData: settings, name: 'temporal-dev' });
  const send = (message: ToThread) => thread.postMessage(message);
  const copies = new Map<number, { resolve(): void; reject(err: Error): void }>();
  let nextCopy = 0;
  let running = false;
  // Not events.once: that rejects on the thread's 'error', which comes before its 'exit'.
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));
  const started = new Promise<Extract<FromThread, { kind: 'started' }>>((resolve, reject) => {
    thread.on('message', (message: FromThread) => {
      if (message.kind === 'started') resolve(message);
      else if (message.kind === 'failed') reject(new Error(message.message));
      else {
        const copy = copies.get(message.id)!;
        copies.delete(message.id);
        if (message.error === undefined) copy.resolve();
        else copy.reject(new Error(message.error));
      }
    });
    thread.on('error', reject);
    void exited.then((code) => {
      const err = new Error(`the embedded Temporal server's thread ended (exit code ${code})`);
      reject(err);
      for (const copy of copies.values()) copy.reject(err);
      copies.clear();
      // Workers and clients then fail to reach it, and readiness says so.
      if (running) logger.error({ err }, 'the embedded Temporal server stopped');
    });
  });
  thread.on('error', (err) => logger.error({ err }, 'the embedded Temporal server failed'));
  const { address, uiUrl } = await started;
  running = true;
  return {
    address,
    uiUrl,
    setUiCodecEndpoint: (url) => send({ kind: 'codecEndpoint', url }),
    copyStateTo: (file) =>
      new Promise((resolve, reject) => {
        const id = nextCopy++;
        copies.set(id, { resolve, reject });
        send({ kind: 'copyState', id, file });
      }),
    async stop() {
      running = false;
      send({ kind: 'stop' });
      await exited;
    },
  };
}
