import type { AutomationRunView, AutomationView } from '../../schemas/automate.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { automationRows, automationView, companyForAutomations, findAutomation, runRows, runView } from './repository.ts';

export async function listAutomations(db: DbOrTrx, principal: Principal, namespace: string): Promise<AutomationView[]> {
  const company = await companyForAutomations(db, principal, namespace);
  return (await automationRows(db).where('au.company_id', '=', company.id).orderBy('au.name').execute()).map(automationView);
}

export async function getAutomation(db: DbOrTrx, principal: Principal, namespace: string, id: string): Promise<AutomationView> {
  const company = await companyForAutomations(db, principal, namespace);
  return automationView(await findAutomation(db, company.id, id));
}

/** The automation's latest runs, newest first (every trigger it saw, skipped ones with their reason). */
export async function listAutomationRuns(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  id: string,
  pageSize: number,
): Promise<AutomationRunView[]> {
  const company = await companyForAutomations(db, principal, namespace);
  await findAutomation(db, company.id, id);
  const rows = await runRows(db)
    .where('automation_id', '=', id)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(pageSize)
    .execute();
  return rows.map(runView);
}
