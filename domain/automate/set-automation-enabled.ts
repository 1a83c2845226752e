import type { AutomationView } from '../../schemas/automate.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { automationView, companyForAutomations, findAutomation } from './repository.ts';

/** Enable or disable: a disabled automation's workflow and schedule end; enabling starts them again. */
export async function setAutomationEnabled(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  id: string,
  enabled: boolean,
): Promise<AutomationView> {
  const { db } = deps;
  const company = await companyForAutomations(db, principal, namespace);
  const current = await findAutomation(db, company.id, id, true);
  if (current.enabled !== enabled) {
    await db
      .updateTable('automations')
      .set({ enabled, updated_at: deps.clock.now(), ...(enabled ? { threshold_met: null } : {}) })
      .where('id', '=', id)
      .execute();
    await enqueue(db, { topic: 'automation.changed', key: id, payload: { automationId: id } });
  }
  return automationView(await findAutomation(db, company.id, id));
}
