/**
 * A least-recently-used map bounded by a total weight (entries count 1 unless weighed, e.g. by
 * their length in bytes), for facts that never change once true: blob bytes by hash, an app's id,
 * a version's file table, a compressed variant; or facts whose owner empties the map when told
 * they changed (`clear`, the principal cache).
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #weight = 0;
  readonly #maxWeight: number;
  readonly #weigh: (value: V) => number;

  constructor(maxWeight: number, weigh: (value: V) => number = () => 1) {
    this.#maxWeight = maxWeight;
    this.#weigh = weigh;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Re-inserted so that Map order is least recently used first.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    const weight = this.#weigh(value);
    if (weight > this.#maxWeight) return;
    this.delete(key);
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.#maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
