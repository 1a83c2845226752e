import { DomainError } from '../../errors.ts';
import { checkOutboundHost } from './outbound.ts';
import { MAX_SOURCE_BYTES, type ReadSpec, SOURCE_TIMEOUT_MS, type SourcePage, type SourceReader } from './source.ts';

// An HTTPS endpoint that answers JSON: an array of records, or an object holding one at
// `itemsPath`. Read once per job; pages are slices of it ({offset}). Redirects are not followed
// (a redirect could lead past the address rule).

async function fetchJson(url: string, authorization: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
  const timeout = AbortSignal.timeout(SOURCE_TIMEOUT_MS);
  const res = await fetch(url, {
    headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    redirect: 'manual',
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new DomainError('invalid_payload', `The endpoint answered HTTP ${res.status}.`, { details: { status: res.status } });
  }
  if (Number(res.headers.get('content-length') ?? 0) > MAX_SOURCE_BYTES) {
    await res.body?.cancel();
    throw new DomainError('payload_too_large', `The endpoint's answer is larger than ${MAX_SOURCE_BYTES} bytes.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_SOURCE_BYTES)
      throw new DomainError('payload_too_large', `The endpoint's answer is larger than ${MAX_SOURCE_BYTES} bytes.`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DomainError('invalid_payload', 'The endpoint did not answer JSON.');
  }
}

function itemsOf(body: unknown, itemsPath: string | undefined): Record<string, unknown>[] {
  let at: unknown = body;
  for (const part of itemsPath ? itemsPath.split('.') : []) {
    at = typeof at === 'object' && at !== null && Object.hasOwn(at, part) ? (at as Record<string, unknown>)[part] : undefined;
  }
  if (!Array.isArray(at))
    throw new DomainError('invalid_payload', `The endpoint's answer has no array at ${itemsPath ?? 'its top level'}.`);
  return at.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r));
}

export function httpsSource(
  url: string,
  authorization: string | undefined,
  opts: { privateNetworks: boolean; signal?: AbortSignal },
): SourceReader {
  let items: Record<string, unknown>[] | undefined;
  const get = async () => {
    const target = new URL(url);
    // Plain http only where private networks are allowed (a test server, an internal service).
    if (target.protocol !== 'https:' && !opts.privateNetworks) {
      throw new DomainError('connection_address_refused', 'Sources are reached over https only.', { details: { host: target.hostname } });
    }
    await checkOutboundHost(target.hostname, opts.privateNetworks);
    return fetchJson(url, authorization, opts.signal);
  };
  return {
    async probe() {
      const body = await get();
      return `The endpoint answered JSON (${Array.isArray(body) ? `an array of ${body.length}` : 'an object'}).`;
    },
    async readPage(spec: ReadSpec, cursor: unknown): Promise<SourcePage> {
      items ??= itemsOf(await get(), (spec.source as { itemsPath?: string }).itemsPath);
      const offset = (cursor as { offset: number } | null)?.offset ?? 0;
      const rows = items.slice(offset, offset + spec.pageSize);
      return { rows, cursor: { offset: offset + rows.length }, done: offset + rows.length >= items.length };
    },
    async close() {
      items = undefined;
    },
  };
}
