import { DomainError } from '../../errors.ts';
import { requestOutbound } from './outbound.ts';
import { MAX_SOURCE_BYTES, type ReadSpec, SOURCE_TIMEOUT_MS, type SourcePage, type SourceReader } from './source.ts';

// An HTTPS endpoint that answers JSON: an array of records, or an object holding one at
// `itemsPath`. Read once per job; pages are slices of it ({offset}). Reached under the outbound
// rule (outbound.ts: the address checked at connect time, no redirect followed).

async function fetchJson(url: string, authorization: string | undefined, opts: { privateNetworks: boolean; signal?: AbortSignal }) {
  const res = await requestOutbound(url, {
    method: 'GET',
    headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    timeoutMs: SOURCE_TIMEOUT_MS,
    maxBytes: MAX_SOURCE_BYTES,
    privateNetworks: opts.privateNetworks,
    signal: opts.signal,
  }).catch((err: unknown) => {
    if (err instanceof DomainError && err.code === 'payload_too_large') {
      throw new DomainError('payload_too_large', `The endpoint's answer is larger than ${MAX_SOURCE_BYTES} bytes.`);
    }
    throw err;
  });
  if (res.status < 200 || res.status > 299) {
    throw new DomainError('invalid_payload', `The endpoint answered HTTP ${res.status}.`, { details: { status: res.status } });
  }
  try {
    return JSON.parse(res.body.toString('utf8')) as unknown;
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
  // Plain http only where private networks are allowed (a test server, an internal service).
  const get = () => fetchJson(url, authorization, opts);
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
