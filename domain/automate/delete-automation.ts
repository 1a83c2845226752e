import type { DbOrTrx } from '../db/index.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { companyForAutomations, findAutomation } from './repository.ts';

/** Deletes the automation and its run history; its workflow and schedule end through the outbox. */
export async function deleteAutomation(db: DbOrTrx, principal: Principal, namespace: string, id: string) {
  const company = await companyForAutomations(db, principal, namespace);
  await findAutomation(db, company.id, id, true);
  await db.deleteFrom('automations').where('id', '=', id).execute();
  await enqueue(db, { topic: 'automation.changed', key: id, payload: { automationId: id } });
  return { deleted: true as const };
}
