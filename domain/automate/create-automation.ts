import type { AutomationView, CreateAutomationInput } from '../../schemas/automate.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { checkDefinition } from './definition.ts';
import { automationRows, automationView, companyForAutomations, nameTaken } from './repository.ts';

/**
 * Creates an automation of the company, owned by one of its apps and acting as the developer who
 * saves it. Its workflow (and a schedule condition's Temporal Schedule) follow through the outbox.
 */
export async function createAutomation(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  input: CreateAutomationInput,
): Promise<AutomationView> {
  const { db } = deps;
  const company = await companyForAutomations(db, principal, namespace);
  const app = await db
    .selectFrom('apps')
    .select('id')
    .where('company_id', '=', company.id)
    .where('slug', '=', input.app)
    .executeTakeFirst();
  if (!app) throw new DomainError('app_not_found', `No app ${input.app} in ${namespace}.`, { details: { slug: input.app } });
  await checkDefinition(deps, principal, company, input.condition, input.effects);
  const id = newId('aut');
  await db
    .insertInto('automations')
    .values({
      id,
      company_id: company.id,
      app_id: app.id,
      name: input.name,
      enabled: input.enabled,
      condition: JSON.stringify(input.condition),
      effects: JSON.stringify(input.effects),
      retries: input.retries,
      cooldown_seconds: input.cooldownSeconds,
      daily_cap: input.dailyCap,
      owner_id: principal.account.id,
    })
    .execute()
    .catch((err: unknown) => nameTaken(err, input.name));
  await enqueue(db, { topic: 'automation.changed', key: id, payload: { automationId: id } });
  return automationView(await automationRows(db).where('au.id', '=', id).executeTakeFirstOrThrow());
}
