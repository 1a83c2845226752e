import { describe, expect, it } from 'vitest';
import { httpsSource } from '../../../domain/connectivity/sources/https-source.ts';
import { checkOutboundHost } from '../../../domain/connectivity/sources/outbound.ts';

// The one rule for where sources may connect: non-public addresses are refused, by address or by
// the name's DNS answer, unless the operator allows private networks.

describe('the outbound address rule', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    'localhost',
  ])('refuses %s', async (host) => {
    await expect(checkOutboundHost(host, false)).rejects.toMatchObject({ code: 'connection_address_refused', details: { host } });
  });

  it('admits public addresses, and everything when private networks are allowed', async () => {
    await expect(checkOutboundHost('8.8.8.8', false)).resolves.toBeUndefined();
    await expect(checkOutboundHost('2606:4700:4700::1111', false)).resolves.toBeUndefined();
    await expect(checkOutboundHost('127.0.0.1', true)).resolves.toBeUndefined();
  });

  it('reaches endpoints over https only unless private networks are allowed', async () => {
    const reader = httpsSource('http://example.com/orders', undefined, { privateNetworks: false });
    await expect(reader.probe()).rejects.toMatchObject({ code: 'connection_address_refused' });
  });
});
