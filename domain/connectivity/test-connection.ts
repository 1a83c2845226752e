import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { companyForPipelines, findConnection, readerFor, redactSecrets } from './repository.ts';
import type { ConnectivitySettings } from './settings.ts';

/**
 * Reaches the source once (PostgreSQL: connects and reads its version; S3: lists the prefix;
 * HTTPS: fetches the endpoint). An unreachable or refusing source answers ok: false with the
 * reason; an address the rule refuses is an error (connection_address_refused).
 */
export async function testConnection(db: DbOrTrx, settings: ConnectivitySettings, principal: Principal, namespace: string, id: string) {
  const company = await companyForPipelines(db, principal, namespace);
  const row = await findConnection(db, company.id, id);
  const started = performance.now();
  const reader = readerFor(settings, row);
  try {
    const message = await reader.probe();
    return { ok: true, message, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'connection_address_refused') throw err;
    return { ok: false, message: redactSecrets(settings, row, reasonOf(err)), durationMs: Math.round(performance.now() - started) };
  } finally {
    await reader.close();
  }
}

/** A source's failure as text for the caller: the driver's message, cut short. */
function reasonOf(err: unknown): string {
  const e = err as { message?: string; code?: string; name?: string };
  const text = e.message || e.code || e.name || 'unknown error';
  return text.slice(0, 500);
}
