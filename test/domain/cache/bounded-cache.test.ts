import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../domain/cache/bounded-cache.ts';

const bytes = (n: number) => Buffer.alloc(n);

/** Weighed by length, as the blob store's cache is. */
const byteCache = (maxBytes: number) => new BoundedCache<string, Buffer>(maxBytes, (b) => b.length);

describe('BoundedCache', () => {
  it('evicts the least recently used entries until the new one fits in the byte bound', () => {
    const lru = byteCache(10);
    lru.set('a', bytes(4));
    lru.set('b', bytes(4));
    lru.get('a'); // b is now the least recently used
    lru.set('c', bytes(4));
    expect([lru.get('a'), lru.get('b'), lru.get('c')].map((v) => v?.length)).toEqual([4, undefined, 4]);
    lru.set('d', bytes(10));
    expect([lru.get('a'), lru.get('c'), lru.get('d')].map((v) => v?.length)).toEqual([undefined, undefined, 10]);
  });

  it('does not hold an entry larger than the whole bound, nor evict others for it', () => {
    const lru = byteCache(10);
    lru.set('a', bytes(6));
    lru.set('huge', bytes(11));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.get('a')?.length).toBe(6);
  });

  it('counts a replaced entry once', () => {
    const lru = byteCache(10);
    lru.set('a', bytes(6));
    lru.set('a', bytes(6));
    lru.set('b', bytes(4));
    expect([lru.get('a')?.length, lru.get('b')?.length]).toEqual([6, 4]);
  });

  it('holds nothing with a bound of 0', () => {
    const lru = byteCache(0);
    lru.set('a', bytes(1));
    expect(lru.get('a')).toBeUndefined();
  });
});

describe('BoundedCache with unit weights', () => {
  it('holds as many entries as its bound, dropping the least recently used', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });
});
