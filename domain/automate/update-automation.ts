import type { AutomationView, UpdateAutomationInput } from '../../schemas/automate.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { checkDefinition } from './definition.ts';
import { automationView, companyForAutomations, findAutomation } from './repository.ts';

/**
 * Replaces the fields given (the definition is checked whole again) and makes the saving developer
 * its owner. A new condition starts the threshold afresh; the workflow and schedule follow.
 */
export async function updateAutomation(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  id: string,
  input: UpdateAutomationInput,
): Promise<AutomationView> {
  const { db } = deps;
  const company = await companyForAutomations(db, principal, namespace);
  const current = await findAutomation(db, company.id, id, true);
  const condition = input.condition ?? current.condition;
  const effects = input.effects ?? current.effects;
  await checkDefinition(deps, principal, company, condition, effects);
  await db
    .updateTable('automations')
    .set({
      condition: JSON.stringify(condition),
      effects: JSON.stringify(effects),
      retries: input.retries ?? current.retries,
      cooldown_seconds: input.cooldownSeconds ?? current.cooldown_seconds,
      daily_cap: input.dailyCap ?? current.daily_cap,
      ...(input.condition ? { threshold_met: null } : {}),
      owner_id: principal.account.id,
      updated_at: deps.clock.now(),
    })
    .where('id', '=', id)
    .execute();
  await enqueue(db, { topic: 'automation.changed', key: id, payload: { automationId: id } });
  return automationView(await findAutomation(db, company.id, id));
}
