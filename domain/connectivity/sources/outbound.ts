import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../../errors.ts';

// The one rule for where a source may connect: public addresses only, unless the operator allows
// private networks (SVC_CONNECTIVITY_PRIVATE_NETWORKS=allow: a source on the same network, tests).
// Checked on every connection (test and sync), after DNS resolution, so a name that resolves to
// 127.0.0.1 or the cloud's metadata address (169.254.169.254) is refused as the address itself is.

// One list per family: a BlockList also matches IPv4 addresses against IPv4-mapped IPv6 rules.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC_V4.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC_V6.addSubnet(net, bits, 'ipv6');
}

const refused = (host: string, address: string) =>
  new DomainError('connection_address_refused', `${host} is at ${address}, a non-public address that sources may not reach.`, {
    details: { host },
  });

/** Throws connection_address_refused unless every address `host` resolves to is public (or private networks are allowed). */
export async function checkOutboundHost(host: string, privateNetworks: boolean): Promise<void> {
  if (privateNetworks) return;
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true, verbatim: true });
  for (const a of addresses) {
    const blocked = a.family === 6 ? NON_PUBLIC_V6.check(a.address, 'ipv6') : NON_PUBLIC_V4.check(a.address, 'ipv4');
    if (blocked) throw refused(host, a.address);
  }
}
