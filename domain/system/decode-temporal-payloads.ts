import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** A payload as Temporal's codec protocol sends it (proto JSON: metadata values and data in base64). */
export interface WirePayload {
  metadata?: Record<string, string> | undefined;
  data?: string | undefined;
}

/** Bytes form of a payload, as the codec takes it. */
export interface PayloadBytes {
  metadata?: Record<string, Uint8Array> | null;
  data?: Uint8Array | null;
}

/** svc's payload codec, decode side (the composition root gives the one its Temporal clients use). */
export interface PayloadDecoder {
  /** Throws when a payload cannot be opened (its key is unknown, or not the one it was sealed with); the message says which. */
  decode(payloads: PayloadBytes[]): Promise<PayloadBytes[]>;
}

const toBytes = (b64: string | undefined) => new Uint8Array(Buffer.from(b64 ?? '', 'base64'));
const toBase64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');

/**
 * Temporal's codec server `/decode`: the payloads in clear, in the order given (others, such as
 * payloads written before encryption, come back as they are). Platform staff only.
 */
export async function decodeTemporalPayloads(
  decoder: PayloadDecoder | undefined,
  principal: Principal,
  payloads: readonly WirePayload[],
): Promise<{ payloads: WirePayload[] }> {
  authorize(principal, 'temporal.decode-payloads', {});
  if (!decoder) {
    throw new DomainError(
      'conflict',
      'This process has no payload key: set SVC_TEMPORAL_PAYLOAD_KEYS to the keys the worker uses (it keeps a generated one in its own data folder).',
    );
  }
  const bytes = payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, toBytes(v)])),
    data: toBytes(p.data),
  }));
  let decoded: PayloadBytes[];
  try {
    decoded = await decoder.decode(bytes);
  } catch (err) {
    throw new DomainError('payload_undecodable', err instanceof Error ? err.message : String(err));
  }
  return {
    payloads: decoded.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, toBase64(v)])),
      data: toBase64(p.data),
    })),
  };
}
