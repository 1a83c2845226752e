import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { DomainError } from '../../errors.ts';
import { ADDRESS_REFUSED, type AddressKind, classifyAddress, guardedLookup } from '../../security/index.ts';

// The one rule for where a source or a writeback webhook may connect: public addresses only,
// unless the operator allows private networks (SVC_CONNECTIVITY_PRIVATE_NETWORKS=allow: a source
// on the same network, tests). It is applied to the address each connection is actually made to:
// every socket resolves its host through the guarded lookup (domain/security), which drops the
// refused answers, so a name that answered a public address to an earlier check and 127.0.0.1 or
// the cloud's metadata address (169.254.169.254) at connect time (DNS rebinding) cannot pass. A
// host written as an address is connected to without a lookup: it is judged here first.

export const refused = (host: string, address?: string) =>
  new DomainError(
    'connection_address_refused',
    address
      ? `${host} is at ${address}, a non-public address that sources may not reach.`
      : `${host} resolves only to non-public addresses, which sources may not reach.`,
    { details: { host } },
  );

const mayReach = (privateNetworks: boolean) => (kind: AddressKind) => privateNetworks || kind === 'public';

/** The `lookup` option of every outbound socket: only the addresses the rule admits are connected to. */
export const outboundLookup = (privateNetworks: boolean) => guardedLookup(mayReach(privateNetworks));

/** Throws connection_address_refused for a host written as an address the rule refuses (names are judged at connect time). */
export function checkAddressLiteral(host: string, privateNetworks: boolean): void {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) && !mayReach(privateNetworks)(classifyAddress(bare))) throw refused(host, bare);
}

/** The guarded lookup's refusal as connection_address_refused; any other error as it is. */
export function asAddressRefusal(err: unknown, host: string): unknown {
  return (err as { code?: string } | null)?.code === ADDRESS_REFUSED ? refused(host) : err;
}

export interface OutboundAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One HTTP(S) request under the rule: `https:` only unless private networks are allowed, the
 * address checked at connect time, no redirect followed (a redirect could lead past the rule), at
 * most `maxBytes` of answer, and the whole exchange within `timeoutMs` (an AbortError named
 * TimeoutError when it runs out).
 */
export async function requestOutbound(
  url: string,
  opts: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
    maxBytes: number;
    privateNetworks: boolean;
    signal?: AbortSignal | undefined;
  },
): Promise<OutboundAnswer> {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && opts.privateNetworks)) {
    throw new DomainError('connection_address_refused', 'Sources are reached over https only.', { details: { host: target.hostname } });
  }
  checkAddressLiteral(target.hostname, opts.privateNetworks);
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const request = target.protocol === 'https:' ? https.request : http.request;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const fail = (err: unknown) => reject(asAddressRefusal(timeout.aborted ? timeout.reason : err, target.hostname));
    const req = request(
      target,
      {
        method: opts.method,
        headers: { ...opts.headers, ...(opts.body === undefined ? {} : { 'content-length': Buffer.byteLength(opts.body) }) },
        // A socket of its own: a pooled one could have been made to an address resolved earlier.
        agent: false,
        lookup: outboundLookup(opts.privateNetworks) as never,
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > opts.maxBytes) {
            res.destroy();
            reject(new DomainError('payload_too_large', `The answer is larger than ${opts.maxBytes} bytes.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', fail);
    req.end(opts.body);
  });
}
