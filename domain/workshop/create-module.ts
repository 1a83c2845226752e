import { randomUUID } from 'node:crypto';
import type { CreateModuleInput, ModuleView } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { companyNamed } from '../groups/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { addGrant } from '../resources/index.ts';
import { checkDefinition } from './check-definition.ts';
import { insertVersion, moduleFor, moduleRid, moduleView } from './repository.ts';

/**
 * Creates a module of a company with its definition as version 1 (unpublished); the company's
 * developers are its Owners. `access: company` gives the company a Viewer grant (its members open
 * the published version), revocable like any grant.
 */
export async function createModule(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: CreateModuleInput,
): Promise<ModuleView> {
  const { db } = deps;
  const cellId = companyNamed(principal, input.organization);
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', cellId).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${cellId}.`, { details: { organization: cellId } });
  authorize(principal, 'workshop.create', { namespace: company.cell_id });
  await checkDefinition(deps, principal, company.cell_id, input.definition);
  const id = randomUUID();
  await db
    .insertInto('workshop_modules')
    .values({ id, company_id: company.id, name: input.name, created_by: principal.account.id })
    .execute();
  await insertVersion(db, id, input.definition, principal.account.id);
  if (input.access === 'company') await addGrant(db, deps.clock, principal, moduleRid(id), { principal: company.cell_id, role: 'viewer' });
  return moduleView(await moduleFor(deps, principal, moduleRid(id), 'workshop.read'));
}
