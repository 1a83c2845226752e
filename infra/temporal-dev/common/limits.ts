// Temporal's size limits with its defaults, settable by their dynamic config keys (LIMIT_KEYS,
// read through dynamic-config.ts) or the `limits` option in-process, and how sizes are measured
// (frontend/payload-limits.ts makes the frontend's checks with them).

import { encodeMessage, lookupType, type Msg } from './proto.ts';

export interface Limits {
  /** limit.blobSize.error / .warn: one payload field of a request or command (bytes). */
  blobSizeError: number;
  blobSizeWarn: number;
  /** limit.memoSize.error / .warn: a start's or continue-as-new's memo, a memo after an upsert (bytes). */
  memoSizeError: number;
  memoSizeWarn: number;
  /** limit.historyCount.error / limit.historySize.error: a running workflow past them is terminated. */
  historyCountError: number;
  historySizeError: number;
  /** limit.historyCount.suggestContinueAsNew / limit.historySize.suggestContinueAsNew, for WorkflowTaskStarted. */
  historyCountSuggestContinueAsNew: number;
  historySizeSuggestContinueAsNew: number;
}

export const DEFAULT_LIMITS: Limits = {
  blobSizeError: 2 * 1024 * 1024,
  blobSizeWarn: 512 * 1024,
  memoSizeError: 2 * 1024 * 1024,
  memoSizeWarn: 2 * 1024,
  historyCountError: 50 * 1024,
  historySizeError: 50 * 1024 * 1024,
  historyCountSuggestContinueAsNew: 4 * 1024,
  historySizeSuggestContinueAsNew: 4 * 1024 * 1024,
};

/** The dynamic config key of each limit (`--dynamic-config-value limit.blobSize.error=10240`). */
export const LIMIT_KEYS = {
  'limit.blobSize.error': 'blobSizeError',
  'limit.blobSize.warn': 'blobSizeWarn',
  'limit.memoSize.error': 'memoSizeError',
  'limit.memoSize.warn': 'memoSizeWarn',
  'limit.historyCount.error': 'historyCountError',
  'limit.historySize.error': 'historySizeError',
  'limit.historyCount.suggestContinueAsNew': 'historyCountSuggestContinueAsNew',
  'limit.historySize.suggestContinueAsNew': 'historySizeSuggestContinueAsNew',
} as const satisfies Record<string, keyof Limits>;

export const BLOB_SIZE_EXCEEDED = 'Blob data size exceeds limit.';
export const MEMO_SIZE_EXCEEDED = 'Memo size exceeds limit.';

/** Temporal refuses a blob only past both limits (so a warn limit above the error limit disables the error). */
export function blobTooLarge(limits: Limits, size: number): boolean {
  return size > limits.blobSizeWarn && size > limits.blobSizeError;
}

export function memoTooLarge(limits: Limits, memo: Msg | undefined): boolean {
  const size = protoSize('temporal.api.common.v1.Memo', memo);
  return size > limits.memoSizeWarn && size > limits.memoSizeError;
}

/** Encoded size of a message (Temporal measures payloads as `proto.Size`); 0 when absent. */
export function protoSize(typeName: string, message: Msg | null | undefined): number {
  return message ? encodeMessage(lookupType(typeName), message).length : 0;
}

/** Size of payload maps as Temporal counts them for search attribute and memo upserts: keys plus data. */
export function payloadMapSize(fields: Record<string, Msg> | undefined): number {
  let size = 0;
  for (const [key, payload] of Object.entries(fields ?? {})) size += Buffer.byteLength(key) + (payload.data?.length ?? 0);
  return size;
}
