// One long-lived thread that serves many calls at once (I/O-bound work such as reading a query's
// result), where a WorkerPool thread serves one job at a time. Its point is a heap of its own:
// whatever a call allocates is collected there, never on the event loop's thread. Calls carry ids;
// a caller's AbortSignal reaches the call inside the thread; a DomainError crosses as itself. A
// thread that dies fails its calls in flight, and the next call starts a new one.
import { parentPort, Worker } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { LOW_PRIORITY_THREAD } from './worker-pool.ts';

type Call = { id: number; input: unknown } | { id: number; abort: true };
type CrossingError = { code: DomainError['code']; message: string; details?: Record<string, unknown>; retryAfterSeconds?: number };
type Reply = { id: number; output: unknown } | { id: number; domainError: CrossingError } | { id: number; error: string };

export class ThreadChannel<I, O> {
  readonly #script: URL;
  #worker: Worker | undefined;
  readonly #pending = new Map<number, { resolve(output: O): void; reject(error: unknown): void }>();
  #nextId = 1;

  constructor(script: URL) {
    this.#script = script;
  }

  call(input: I, signal?: AbortSignal): Promise<O> {
    const worker = this.#thread();
    const id = this.#nextId++;
    return new Promise<O>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ id, abort: true } satisfies Call);
      const settle = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(id);
        if (this.#pending.size === 0) worker.unref();
      };
      this.#pending.set(id, {
        resolve: (output) => {
          settle();
          resolve(output);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      // Only a thread with calls in flight keeps the process alive.
      worker.ref();
      worker.postMessage({ id, input } satisfies Call);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Ends the thread (its calls in flight fail). */
  async close(): Promise<void> {
    await this.#worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(LOW_PRIORITY_THREAD, { workerData: { script: this.#script.href } });
    this.#worker = worker;
    worker.on('message', (reply: Reply) => {
      const call = this.#pending.get(reply.id);
      if (!call) return;
      if ('output' in reply) call.resolve(reply.output as O);
      else if ('domainError' in reply) {
        const { code, message, details, retryAfterSeconds } = reply.domainError;
        call.reject(new DomainError(code, message, { details, retryAfterSeconds }));
      } else call.reject(new Error(reply.error));
    });
    worker.on('error', () => {}); // reaches the calls through 'exit'
    worker.once('exit', (code) => {
      this.#worker = undefined;
      for (const call of [...this.#pending.values()]) call.reject(new Error(`the thread exited with code ${code}`));
    });
    return worker;
  }
}

/** The thread's side of a ThreadChannel: runs `handle` for every call, each with a signal its caller may abort. */
export function serveThreadCalls<I, O>(handle: (input: I, signal: AbortSignal) => Promise<O>): void {
  const port = parentPort;
  if (!port) throw new Error('serveThreadCalls runs only in a worker thread');
  const running = new Map<number, AbortController>();
  port.on('message', (call: Call) => {
    if ('abort' in call) {
      running.get(call.id)?.abort();
      return;
    }
    const aborted = new AbortController();
    running.set(call.id, aborted);
    handle(call.input as I, aborted.signal)
      .then(
        (output): Reply => ({ id: call.id, output }),
        (error: unknown): Reply =>
          error instanceof DomainError
            ? { id: call.id, domainError: crossing(error) }
            : { id: call.id, error: error instanceof Error ? error.message : String(error) },
      )
      .then((reply) => {
        running.delete(call.id);
        port.postMessage(reply);
      });
  });
}

/** A DomainError as a message can carry it (structured clone keeps plain data, not the class). */
const crossing = (error: DomainError): CrossingError => ({
  code: error.code,
  message: error.message,
  ...(error.details ? { details: error.details } : {}),
  ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
});
