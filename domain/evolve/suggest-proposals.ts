import type { ProposalView } from '../../schemas/evolve.ts';
import { localModelProvider, type ModelProvider } from '../app-workflows/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { assertModelCallAllowed, recordUsage } from '../usage/index.ts';
import { storeProposal } from './create-proposal.ts';
import { declaredOf } from './declared.ts';
import { developedApp, governingVersion } from './evolve-app.ts';
import { slotOfName } from './read-evidence.ts';

/** Feedback read per suggestion run (newest first) and evidence named per proposal. */
const FEEDBACK_READ = 200;
const EVIDENCE_PER_PROPOSAL = 20;

/**
 * Proposals from the app log through the model provider (the one workflow `model` steps use; the
 * deterministic local provider unless the composition root gives another): for each declared slot
 * with feedback still to handle that no open proposal answers yet, the model is asked where within
 * their ranges the slot's tokens should go (`position`, 0 = min, 1 = max) and for a title. Whatever
 * it answers, a proposal changes only that slot's declared tokens, within their range, and names
 * the feedback it answers. Slots without tokens get no suggestion (their text is the developer's).
 */
export async function suggestProposals(
  deps: { db: DbOrTrx; clock: Clock; models?: ModelProvider | undefined },
  principal: Principal,
  namespace: string,
  slug: string,
): Promise<{ proposals: ProposalView[]; model: string }> {
  const { db } = deps;
  const models = deps.models ?? localModelProvider;
  const app = await developedApp(db, principal, namespace, slug);
  const version = await governingVersion(db, app);
  const declared = declaredOf(version.manifest);
  const [feedback, open] = await Promise.all([
    db
      .selectFrom('app_log_events')
      .select(['id', 'name', 'data'])
      .where('app_id', '=', app.id)
      .where('kind', '=', 'feedback')
      .where('status', 'in', ['open', 'planned'])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(FEEDBACK_READ)
      .execute(),
    db.selectFrom('evolve_proposals').select('evidence').where('app_id', '=', app.id).where('status', '=', 'open').execute(),
  ]);
  const answered = new Set(open.flatMap((p) => p.evidence as string[]));
  const bySlot = new Map<string, typeof feedback>();
  for (const f of feedback) {
    const slot = slotOfName(declared, f.name);
    if (slot && !answered.has(f.id)) bySlot.set(slot, [...(bySlot.get(slot) ?? []), f]);
  }
  const proposals: ProposalView[] = [];
  for (const [slot, items] of bySlot) {
    const tokens = [...declared.tokens.values()].filter((t) => (declared.slots.get(t.slot) ?? t.slot) === slot);
    if (!tokens.length) continue;
    const evidence = items.slice(0, EVIDENCE_PER_PROPOSAL);
    // The app's model budget, as for a workflow's model step: refused once today's tokens or this month's budget are spent.
    await assertModelCallAllowed(db, deps.clock, app.id);
    const started = performance.now();
    const answer = await models.analyze({
      model: version.manifest.evolve?.model,
      prompt:
        `Feedback on the "${slot}" region of the app ${app.namespace}/${app.slug}. Propose where within its range ` +
        'each of the region’s tokens should go to answer it: position 0 is the minimum, 1 the maximum; and a short title.',
      input: {
        slot,
        tokens: tokens.map((t) => ({ name: t.name, min: t.min, max: t.max, default: t.default ?? null, unit: t.unit ?? null })),
        feedback: evidence.map((f) => ({ topic: f.name, ...(f.data as object) })),
      },
      fields: { title: { type: 'text' }, position: { type: 'real' } },
    });
    // With the proposals, in the request's transaction: a dry run changes nothing, its count included.
    const at = deps.clock.now();
    await recordUsage(db, [
      { appId: app.id, meter: 'model.tokens', amount: answer.tokens, at },
      { appId: app.id, meter: 'model.cost', amount: answer.costMicroUsd, at },
      { appId: app.id, meter: 'compute.model', amount: Math.round(performance.now() - started), at },
    ]);
    const raw = Number(answer.fields.position);
    const position = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 0.5;
    const changes = tokens.map((t) => {
      const exact = t.min + position * (t.max - t.min);
      const stepped = t.step ? t.min + Math.round((exact - t.min) / t.step) * t.step : Math.round(exact * 100) / 100;
      return { kind: 'token' as const, token: t.name, value: Math.min(t.max, Math.max(t.min, stepped)) };
    });
    const title = `Tune ${slot}: ${String(answer.fields.title ?? '')}`.slice(0, 120);
    proposals.push(
      await storeProposal(
        db,
        principal,
        app,
        {
          slug,
          title,
          rationale: `Suggested by the ${models.name} model provider from ${evidence.length} feedback item(s) on ${slot}.`,
          scope: 'company',
          changes,
          evidence: evidence.map((f) => f.id),
        },
        { kind: 'suggest', agent: null },
      ),
    );
  }
  return { proposals, model: models.name };
}
