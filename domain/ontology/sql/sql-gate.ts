import { DomainError } from '../../errors.ts';

// The process's budget of ontology SQL: at most `maxRunning` queries hold a connection at once (a
// dedicated budget: the service's own pool is never used for them), and no company more than
// `perCompany` of them, so one company cannot take every slot. A query over the budget waits in a
// bounded queue (at most `maxRunning` waiting in all, at most `perCompany` of one company), for at
// most `maxWaitMs`; beyond that it is refused (rate_limited) at once. Waiters are served in order,
// skipping those whose company is at its cap.

export interface SqlGateOptions {
  maxRunning: number;
  perCompany: number;
  maxWaitMs: number;
}

interface Waiter {
  company: string;
  admit(): void;
}

export class SqlGate {
  readonly options: SqlGateOptions;
  readonly #running = new Map<string, number>();
  #total = 0;
  readonly #queue: Waiter[] = [];

  constructor(options: SqlGateOptions) {
    this.options = { ...options, perCompany: Math.min(options.perCompany, options.maxRunning) };
  }

  /** Queries holding a slot, and waiting for one (for tests and the bench). */
  get load(): { running: number; waiting: number } {
    return { running: this.#total, waiting: this.#queue.length };
  }

  /** Resolves with the slot's release once the query may run; rejects with rate_limited (or the signal's reason). */
  async enter(company: string, signal?: AbortSignal): Promise<() => void> {
    const { maxRunning, perCompany, maxWaitMs } = this.options;
    if (this.#total < maxRunning && this.#runningOf(company) < perCompany) return this.#take(company);
    const waitingOfCompany = this.#queue.filter((w) => w.company === company).length;
    if (this.#runningOf(company) + waitingOfCompany >= 2 * perCompany) {
      throw busy(
        `This company already has ${this.#runningOf(company)} ontology SQL queries running and ${waitingOfCompany} waiting on this service (at most ${perCompany} run at once per company); retry when one finishes.`,
      );
    }
    if (this.#queue.length >= maxRunning) {
      throw busy(
        `Ontology SQL is busy: ${this.#total} queries run on this service (its limit, SVC_SQL_MAX_CONNECTIONS) and ${this.#queue.length} wait; retry shortly.`,
      );
    }
    return new Promise((resolve, reject) => {
      const leave = (error: unknown) => {
        const at = this.#queue.indexOf(waiter);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      const onAbort = () => leave(signal?.reason);
      const waiter: Waiter = {
        company,
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#take(company));
        },
      };
      const timer = setTimeout(
        () => leave(busy(`Ontology SQL stayed busy for ${maxWaitMs} ms (${maxRunning} queries at once on this service); retry shortly.`)),
        maxWaitMs,
      );
      this.#queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #runningOf(company: string): number {
    return this.#running.get(company) ?? 0;
  }

  #take(company: string): () => void {
    this.#total += 1;
    this.#running.set(company, this.#runningOf(company) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = this.#runningOf(company) - 1;
      if (left > 0) this.#running.set(company, left);
      else this.#running.delete(company);
      this.#admitNext();
    };
  }

  #admitNext(): void {
    if (this.#total >= this.options.maxRunning) return;
    const at = this.#queue.findIndex((w) => this.#runningOf(w.company) < this.options.perCompany);
    if (at < 0) return;
    const [waiter] = this.#queue.splice(at, 1);
    waiter!.admit();
  }
}

const busy = (message: string) => new DomainError('rate_limited', message, { retryAfterSeconds: 1 });
