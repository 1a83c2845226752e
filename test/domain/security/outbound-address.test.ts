import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADDRESS_REFUSED, type AddressKind, classifyAddress, guardedLookup } from '../../../domain/security/index.ts';

// The one address table cameras and data sources decide on: each kind by example and by property,
// IPv4-mapped forms judged as their IPv4, and the lookup that keeps only admitted answers.

const octet = fc.nat(255);
const group = fc.nat(0xffff).map((n) => n.toString(16));
const v4 = fc.tuple(octet, octet, octet, octet);
const dotted = (q: readonly number[]) => q.join('.');
const mappedHex = ([a, b, c, d]: readonly number[]) => `::ffff:${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;

describe('classifyAddress', () => {
  it.each<[string, AddressKind]>([
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.7', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::7f00:1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('refuses what is not an IP address', () => {
    for (const text of ['localhost', '[::1]', '1.2.3', '', '::ffff:1.2.3.4.5'])
      expect(() => classifyAddress(text), text).toThrow(/not an IP/);
  });

  it('classifies every address of a range as its kind', () => {
    const inRange = (first: number, bits: number) =>
      fc.nat(2 ** (32 - bits) - 1).map((n) => {
        const x = ((first >>> 0) + n) >>> 0;
        return dotted([x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255]);
      });
    const ranges: [number, number, AddressKind][] = [
      [0xa9fe0000, 16, 'link-local'],
      [0x7f000000, 8, 'loopback'],
      [0x0a000000, 8, 'private'],
      [0xac100000, 12, 'private'],
      [0xc0a80000, 16, 'private'],
      [0xe0000000, 4, 'multicast'],
      [0xf0000000, 4, 'reserved'],
      [0x00000000, 8, 'unspecified'],
    ];
    for (const [first, bits, kind] of ranges) {
      fc.assert(fc.property(inRange(first, bits), (address) => classifyAddress(address) === kind));
    }
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.array(group, { minLength: 7, maxLength: 7 })),
        ([head, rest]) => classifyAddress([head.toString(16), ...rest].join(':')) === 'link-local',
      ),
    );
    fc.assert(
      fc.property(fc.array(group, { minLength: 7, maxLength: 7 }), (rest) => classifyAddress(['ff00', ...rest].join(':')) === 'multicast'),
    );
  });

  it('classifies an IPv4-mapped address, dotted or in hex, as its IPv4 address', () => {
    fc.assert(
      fc.property(v4, (q) => {
        const kind = classifyAddress(dotted(q));
        expect(classifyAddress(`::ffff:${dotted(q)}`)).toBe(kind);
        expect(classifyAddress(mappedHex(q))).toBe(kind);
      }),
    );
  });

  it('gives every IPv4 and IPv6 address a kind', () => {
    const kinds = new Set<AddressKind>(['unspecified', 'loopback', 'link-local', 'multicast', 'reserved', 'private', 'public']);
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => kinds.has(classifyAddress(address))));
  });
});

describe('guardedLookup', () => {
  const resolve = (allowed: (kind: AddressKind) => boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      guardedLookup(allowed)('localhost', {}, (err, address) => done({ err, address })),
    );

  it('answers only admitted addresses, and a refusal when DNS gave none', async () => {
    const admitted = await resolve((kind) => kind === 'loopback');
    expect(admitted.err).toBeNull();
    expect(classifyAddress(admitted.address as string)).toBe('loopback');
    const refused = await resolve((kind) => kind === 'public');
    expect(refused.err?.code).toBe(ADDRESS_REFUSED);
  });
});
