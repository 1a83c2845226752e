import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient, ServerEvent } from './client.ts';
import { CliError, exitCodeOf } from './errors.ts';

/** Before reconnecting a stream that ended without saying why (the service restarting). */
const RECONNECT_MS = 2000;

/**
 * Follows one of the service's event streams until interrupted: each event but `reconnect` and
 * `end` goes to `onEvent`; the stream is opened again after the last event id when it asks to
 * (`reconnect`, with its `after`) or drops; `end` fails the command with its code (401: exit 3).
 */
export async function followStream(
  client: ApiClient,
  path: string,
  query: Record<string, string>,
  after: string | undefined,
  onEvent: (event: ServerEvent) => Promise<void> | void,
): Promise<never> {
  for (;;) {
    let reconnect = false;
    for await (const e of client.events(path, { ...query, ...(after !== undefined ? { after } : {}) })) {
      if (e.id !== undefined) after = e.id;
      if (e.event === 'end') {
        const end = e.data as { code: string; message: string };
        throw new CliError(end.message, exitCodeOf(end.code), { code: end.code });
      }
      if (e.event === 'reconnect') {
        const resume = (e.data as { after: unknown }).after;
        if (resume !== null && resume !== undefined) after = String(resume);
        reconnect = true;
      } else await onEvent(e);
    }
    if (!reconnect) await sleep(RECONNECT_MS);
  }
}
