import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { connectionRows, redactSecrets, secretsOf } from './repository.ts';
import type { ConnectivitySettings } from './settings.ts';
import { requestOutbound } from './sources/outbound.ts';

// The action writeback webhook (spec Events: "an outbound call to a source system, not an event:
// when it fails (rejected, timeout, throttled) the whole action has no effect and returns
// webhook_failed"). The action names an https data connection of its company; its URL is called
// with POST and the action's JSON, with the connection's sealed Authorization header, under the
// outbound address rule checked at connect time. The caller (applying the action) makes the call
// after its edits are written and before they commit, so a failure rolls them back.

/** What a webhook may answer: enough for a status and a short reason, never a download. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface WritebackCall {
  companyId: string;
  connection: string;
  timeoutMs: number;
  /** The JSON body: the action, its operation id, parameters and edits. */
  payload: Record<string, unknown>;
}

const failed = (reason: 'rejected' | 'timeout' | 'throttled' | 'unreachable' | 'connection_not_found', message: string, status?: number) =>
  new DomainError('webhook_failed', message, { details: { reason, ...(status === undefined ? {} : { status }) } });

/** Calls the webhook; throws webhook_failed (details.reason, details.status) unless it answers 2xx in time. */
export async function callWritebackWebhook(db: DbOrTrx, settings: ConnectivitySettings, call: WritebackCall): Promise<void> {
  const row = await connectionRows(db)
    .where('company_id', '=', call.companyId)
    .where('name', '=', call.connection)
    .where('kind', '=', 'https')
    .executeTakeFirst();
  if (!row) throw failed('connection_not_found', `The writeback webhook's connection ${call.connection} is gone.`);
  const { authorization } = secretsOf(settings, row);
  let status: number;
  try {
    ({ status } = await requestOutbound((row.settings as { url: string }).url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': String(call.payload.operationId),
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify(call.payload),
      timeoutMs: call.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      privateNetworks: settings.privateNetworks,
    }));
  } catch (err) {
    if (err instanceof DomainError && err.code === 'connection_address_refused') {
      throw failed('unreachable', `The writeback webhook was not called: ${err.message}`);
    }
    if ((err as Error).name === 'TimeoutError') {
      throw failed('timeout', `The writeback webhook did not answer within ${call.timeoutMs} ms: the action had no effect.`);
    }
    const text = redactSecrets(settings, row, (err as Error).message ?? String(err)).slice(0, 300);
    throw failed('unreachable', `The writeback webhook could not be reached (${text}): the action had no effect.`);
  }
  if (status === 429 || status === 503) {
    throw failed('throttled', `The writeback webhook throttled the call (HTTP ${status}): the action had no effect.`, status);
  }
  if (status < 200 || status > 299) {
    throw failed('rejected', `The writeback webhook rejected the call (HTTP ${status}): the action had no effect.`, status);
  }
}
