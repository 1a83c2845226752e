/**
 * Least-recently-used buffers bounded by their total length. A Map keeps insertion order, so
 * re-inserting on each hit makes its first key the least recently used.
 */
export class ByteLru {
  readonly #entries = new Map<string, Buffer>();
  #bytes = 0;

  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(key: string): Buffer | undefined {
    const value = this.#entries.get(key);
    if (value) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Holds `value` unless it alone exceeds the bound, evicting the least recently used to fit. */
  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.length;
    }
    for (const [k, v] of this.#entries) {
      if (this.#bytes + value.length <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.length;
    }
    this.#entries.set(key, value);
    this.#bytes += value.length;
  }
}
