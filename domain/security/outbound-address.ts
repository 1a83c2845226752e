import dns from 'node:dns';
import net from 'node:net';

// The one table of what an IP address is, for every capability that connects where a company says
// (cameras, data sources). Each capability decides on top of it which kinds it may reach; the
// check runs on the addresses DNS answered, in the lookup the connection itself uses, so a name
// that resolves elsewhere at connect time (DNS rebinding) cannot pass.

export type AddressKind = 'unspecified' | 'loopback' | 'link-local' | 'multicast' | 'reserved' | 'private' | 'public';

// A BlockList matches an IPv4 rule against the IPv4-mapped IPv6 form (::ffff:a.b.c.d) too, so a
// mapped address is judged as the IPv4 address it is. First match wins: specific rules first.
const RULES: readonly (readonly [Exclude<AddressKind, 'public'>, string, number])[] = [
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  // The cloud metadata services: 169.254.169.254 is in link-local; AWS's IPv6 one sits in fc00::/7.
  ['link-local', '169.254.0.0', 16],
  ['link-local', 'fe80::', 10],
  ['link-local', 'fd00:ec2::254', 128],
  ['multicast', '224.0.0.0', 4],
  ['multicast', 'ff00::', 8],
  ['reserved', '240.0.0.0', 4],
  ['reserved', '192.0.0.0', 24],
  ['reserved', '192.0.2.0', 24],
  ['reserved', '198.18.0.0', 15],
  ['reserved', '198.51.100.0', 24],
  ['reserved', '203.0.113.0', 24],
  // IPv4-compatible (deprecated) and NAT64 forms: where they land depends on a translator.
  ['reserved', '::', 96],
  ['reserved', '64:ff9b::', 96],
  ['reserved', '100::', 64],
  ['reserved', '2001:db8::', 32],
  ['private', '10.0.0.0', 8],
  ['private', '100.64.0.0', 10],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', 'fc00::', 7],
  ['private', 'fec0::', 10],
];
const LISTS = RULES.map(([kind, network, bits]) => {
  const list = new net.BlockList();
  list.addSubnet(network, bits, net.isIPv4(network) ? 'ipv4' : 'ipv6');
  return [kind, list] as const;
});

/** What kind of address `address` (an IPv4 or IPv6 literal, without brackets) is; throws on anything else. */
export function classifyAddress(address: string): AddressKind {
  const family = net.isIP(address);
  if (!family) throw new Error(`${address} is not an IP address`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(([, list]) => list.check(address, type))?.[0] ?? 'public';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** The error code of a lookup that found only addresses the caller may not reach. */
export const ADDRESS_REFUSED = 'ESVC_ADDRESS_REFUSED';

/**
 * dns.lookup for a connection's `lookup` option, keeping only the addresses `allowed` admits: the
 * connection is made to one of those, never to a later answer. Nothing admitted: an error whose
 * code is ADDRESS_REFUSED.
 */
export function guardedLookup(allowed: (kind: AddressKind) => boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const kept = addresses.filter((a) => allowed(classifyAddress(a.address)));
      if (kept.length === 0) {
        return callback(Object.assign(new Error(`${hostname} resolves only to refused addresses`), { code: ADDRESS_REFUSED }), []);
      }
      if (options.all) callback(null, kept);
      else callback(null, kept[0]!.address, kept[0]!.family);
    });
  };
}
