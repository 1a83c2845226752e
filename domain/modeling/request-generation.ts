import { type GenerateInput, type GenerationView, MODELING_LIMITS } from '../../schemas/modeling.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertWorldCreditsAvailable, recordUsage } from '../usage/index.ts';
import { authorizeGenerate } from './access.ts';
import { normalizeRotation, WORLD_GENERATORS } from './providers.ts';
import { assetRows, companyOf, generationView } from './repository.ts';

/**
 * Accepts a generation charged to the caller's app (an app ticket): checks its parts exist, counts
 * its credits against the app's worldCreditsPerDay (429 quota_exhausted past it; 0, the default,
 * means view only) and asks, through the outbox, for the workflow that runs the provider. All in
 * the request's transaction: a refused or dry-run request counts nothing and starts nothing.
 */
export async function requestGeneration(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  namespace: string,
  input: GenerateInput,
): Promise<GenerationView> {
  await authorizeGenerate(db, principal, namespace);
  if (principal.kind !== 'ticket') throw new Error('world.generate admits app tickets only');
  const appId = principal.ticket.appId;
  const company = await companyOf(db, namespace);
  for (const [i, part] of input.parts.entries()) normalizeRotation(part.rotation, i);
  const names = [...new Set(input.parts.map((p) => p.asset))];
  const found = new Map((await assetRows(db, company.id).where('name', 'in', names).execute()).map((r) => [r.name, r.size]));
  const missing = names.find((n) => !found.has(n));
  if (missing) {
    throw new DomainError('world_asset_not_found', `No world-model asset ${missing} in ${namespace}.`, {
      details: { namespace, asset: missing },
    });
  }
  // The composed scene embeds every part: refused now rather than after its credits are spent.
  const embedded = input.parts.reduce((sum, p) => sum + found.get(p.asset)!, 0);
  if (embedded > MODELING_LIMITS.assetBytes) {
    throw new DomainError(
      'payload_too_large',
      `The parts add up to ${embedded} bytes; a scene may have at most ${MODELING_LIMITS.assetBytes}.`,
      {
        details: { limitBytes: MODELING_LIMITS.assetBytes, bytes: embedded },
      },
    );
  }
  const credits = WORLD_GENERATORS[input.provider].creditsFor(input);
  await assertWorldCreditsAvailable(db, clock, appId, credits);
  const now = clock.now();
  const row = await db
    .insertInto('world_generations')
    .values({
      id: newId('wgen'),
      company_id: company.id,
      app_id: appId,
      provider: input.provider,
      asset_name: input.asset,
      request: JSON.stringify(input),
      credits,
      status: 'queued',
      created_by: principal.account.id,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordUsage(db, [{ appId, meter: 'world.credits', amount: credits, at: now }]);
  await enqueue(db, { topic: 'world-generation.requested', key: row.id, payload: { generationId: row.id, appId } });
  return generationView(row);
}
