import type { Clock } from '../../domain/deps.ts';

/** A clock that stands still at the time a test sets, so windows and lockouts are checked at exact instants. */
export class TestClock implements Clock {
  #ms: number;

  constructor(start: Date | string) {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  set(to: Date | string): void {
    this.#ms = new Date(to).getTime();
  }

  /** Moves on by minutes, seconds and milliseconds. */
  advance(by: { minutes?: number; seconds?: number; ms?: number }): void {
    this.#ms += (by.minutes ?? 0) * 60_000 + (by.seconds ?? 0) * 1000 + (by.ms ?? 0);
  }
}
