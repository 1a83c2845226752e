import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { DomainError } from '../../errors.ts';
import { classifyAddress } from '../../security/index.ts';

// The one rule for where a source may connect: public addresses only, unless the operator allows
// private networks (SVC_CONNECTIVITY_PRIVATE_NETWORKS=allow: a source on the same network, tests).
// Checked on every connection (test and sync), after DNS resolution, so a name that resolves to
// 127.0.0.1 or the cloud's metadata address (169.254.169.254) is refused as the address itself is.
// What an address is comes from domain/security's one table.

const refused = (host: string, address: string) =>
  new DomainError('connection_address_refused', `${host} is at ${address}, a non-public address that sources may not reach.`, {
    details: { host },
  });

/** Throws connection_address_refused unless every address `host` resolves to is public (or private networks are allowed). */
export async function checkOutboundHost(host: string, privateNetworks: boolean): Promise<void> {
  if (privateNetworks) return;
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [{ address: bare }] : await lookup(bare, { all: true, verbatim: true });
  for (const a of addresses) {
    if (classifyAddress(a.address) !== 'public') throw refused(host, a.address);
  }
}
