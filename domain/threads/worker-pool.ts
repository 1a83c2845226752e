// A few worker threads for CPU-heavy work on untrusted input (bundle validation, expressions), so that it
// never blocks the event loop. Each thread runs one job at a time, at the lowest scheduling priority
// (low-priority-thread.ts). Jobs wait for a free thread in order within their tenant (a company),
// and tenants take turns: a company that sends a hundred jobs delays another's next job by at most
// one job per tenant waiting, not by its hundred. A job that uses more CPU time
// than its limit is stopped by terminating its thread, which nothing inside the job can prevent; a
// new thread replaces it when needed. The limit is CPU time, not wall time: a thread at the lowest
// priority on a busy machine may wait long for a core, and waiting is not the input's cost. A
// ceiling on wall time still ends a job that waits (or sleeps) far too long. A thread left idle
// for a while ends (each holds a heap and its loaded modules, about 35 MB resident); the next job
// starts a new one.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Starts each thread at the lowest scheduling priority, then loads the pool's script. */
export const LOW_PRIORITY_THREAD = new URL('./low-priority-thread.ts', import.meta.url);

/** A pool's default size: a thread per spare core (at most 4), leaving one core to the event loop. */
export const SPARE_CORES = Math.max(1, Math.min(4, availableParallelism() - 1));

export class WorkerTimeoutError extends Error {
  override name = 'WorkerTimeoutError';
}

type Job = { input: unknown; resolve(output: unknown): void; reject(error: unknown): void };

export type WorkerPoolOptions = {
  /** Module run by each thread: it answers every message with one message. */
  script: URL;
  size: number;
  /** CPU time per job, from the moment a thread takes it: waiting for a thread does not count, a new thread's start-up does. */
  timeLimitMs: number;
  /** How long a thread may stay idle before it ends (IDLE_THREAD_MS by default). */
  idleMs?: number;
};

/** A thread idle this long ends: long enough that a burst of jobs keeps its threads, short enough that a quiet process gives the memory back. */
export const IDLE_THREAD_MS = 60_000;

/** A job also ends after this many times its limit in wall time, whatever CPU time it used. */
const WALL_CEILING_FACTOR = 6;
/** How often a running job's CPU time is read. */
const CPU_SAMPLE_MS = 50;

export class WorkerPool<I, O> {
  readonly #options: WorkerPoolOptions;
  readonly #idle: Worker[] = [];
  /** The timer that ends each idle thread. */
  readonly #idleTimers = new Map<Worker, NodeJS.Timeout>();
  /** Waiting jobs by tenant; a tenant is here only while it has some, in the order of its turn. */
  readonly #queues = new Map<string, Job[]>();
  #threads = 0;
  #running = 0;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  get timeLimitMs(): number {
    return this.#options.timeLimitMs;
  }

  /** Threads alive, busy or idle. */
  get threads(): number {
    return this.#threads;
  }

  /** Jobs a thread is working on now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `input` on a thread, after the waiting jobs of `tenant` and in turn with other tenants'. */
  run(input: I, tenant = ''): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const job = { input, resolve: resolve as (output: unknown) => void, reject };
      const queue = this.#queues.get(tenant);
      if (queue) queue.push(job);
      else this.#queues.set(tenant, [job]);
      this.#dispatch();
    });
  }

  /** The next tenant's first job; that tenant's turn moves to the end (a Map keeps insertion order). */
  #next(): Job | undefined {
    const first = this.#queues.entries().next();
    if (first.done) return undefined;
    const [tenant, queue] = first.value;
    const job = queue.shift();
    this.#queues.delete(tenant);
    if (queue.length > 0) this.#queues.set(tenant, queue);
    return job;
  }

  #dispatch(): void {
    while (this.#queues.size > 0 && (this.#idle.length > 0 || this.#threads < this.#options.size)) {
      const worker = this.#idle.pop() ?? this.#spawn();
      clearTimeout(this.#idleTimers.get(worker));
      this.#idleTimers.delete(worker);
      this.#start(worker, this.#next() as Job);
    }
  }

  #spawn(): Worker {
    const worker = new Worker(LOW_PRIORITY_THREAD, { workerData: { script: this.#options.script.href } });
    this.#threads += 1;
    // A failure during a job reaches that job (below); any later one only ends the thread.
    worker.on('error', () => {});
    worker.once('exit', () => {
      this.#threads -= 1;
      clearTimeout(this.#idleTimers.get(worker));
      this.#idleTimers.delete(worker);
      const idle = this.#idle.indexOf(worker);
      if (idle >= 0) this.#idle.splice(idle, 1);
      this.#dispatch();
    });
    return worker;
  }

  /** Ends an idle thread; out of the idle list at once, so no job is given to it while it exits. */
  #retire(worker: Worker): void {
    const idle = this.#idle.indexOf(worker);
    if (idle < 0) return;
    this.#idle.splice(idle, 1);
    this.#idleTimers.delete(worker);
    void worker.terminate();
  }

  #start(worker: Worker, job: Job): void {
    // Only a busy thread keeps the process alive.
    worker.ref();
    this.#running += 1;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      this.#running -= 1;
      clearTimeout(timer);
      clearInterval(sampler);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      outcome();
    };
    const onMessage = (output: unknown) =>
      settle(() => {
        worker.unref();
        this.#idle.push(worker);
        this.#idleTimers.set(worker, setTimeout(() => this.#retire(worker), this.#options.idleMs ?? IDLE_THREAD_MS).unref());
        job.resolve(output);
        this.#dispatch();
      });
    const onError = (error: Error) => settle(() => job.reject(error));
    const onExit = (code: number) => settle(() => job.reject(new Error(`the worker thread exited with code ${code}`)));
    const stop = () =>
      settle(() => {
        void worker.terminate();
        job.reject(new WorkerTimeoutError(`the job took longer than ${this.#options.timeLimitMs} ms`));
      });
    const limitMicros = this.#options.timeLimitMs * 1000;
    // A thread not yet running has used nothing: its start-up counts from zero.
    const started = worker.cpuUsage().catch(() => ({ user: 0, system: 0 }));
    const sampler = setInterval(
      () => {
        void Promise.all([started, worker.cpuUsage()]).then(
          ([from, now]) => {
            if (!settled && now.user + now.system - from.user - from.system >= limitMicros) stop();
          },
          () => {}, // not running yet (the next sample reads it), or ended: its exit settles the job
        );
      },
      Math.min(CPU_SAMPLE_MS, this.#options.timeLimitMs),
    );
    const timer = setTimeout(stop, this.#options.timeLimitMs * WALL_CEILING_FACTOR);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(job.input);
  }
}
