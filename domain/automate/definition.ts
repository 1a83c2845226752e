import type { AutomationCondition, AutomationEffect } from '../../schemas/automate.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { aggregate, findObjectTypeRecord, findOntologyOfCompany, getActionType, matchObjects } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';

const invalid = (path: string, message: string) =>
  new DomainError('invalid_payload', message, { details: { problems: [{ path, code: 'invalid', message }] } });

/** The object type a data condition watches (object_type_not_found when the company has none such). */
export async function watchedType(db: DbOrTrx, companyId: string, apiName: string) {
  const ontology = await findOntologyOfCompany(db, companyId);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, apiName));
  if (!ontology || !type)
    throw new DomainError('object_type_not_found', `No object type ${apiName}.`, { details: { objectType: apiName } });
  return { ontology, type };
}

/**
 * Checks a definition against the company's data as it stands: the watched type exists, its where
 * clause and aggregation compile (query_invalid otherwise, never a 5xx), the actions exist and the
 * saving developer may run them, and parameters taken from the object name its properties (a
 * schedule has no object to take them from).
 */
export async function checkDefinition(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  company: { id: string; cell_id: string },
  condition: AutomationCondition,
  effects: readonly AutomationEffect[],
): Promise<void> {
  const { db } = deps;
  const watched = condition.type === 'schedule' ? null : await watchedType(db, company.id, condition.objectType);
  if (watched && condition.type === 'objectsChanged') await matchObjects(db, watched.ontology, watched.type, condition.where, []);
  if (watched && condition.type === 'threshold') {
    await aggregate(db, watched.ontology, watched.type, { aggregation: [condition.aggregation], where: condition.where, groupBy: [] });
  }
  for (const [i, effect] of effects.entries()) {
    if (effect.type !== 'action') continue;
    await getActionType(deps, principal, company.cell_id, effect.action);
    for (const [name, source] of Object.entries(effect.parameters)) {
      if (source.from === 'value') continue;
      if (condition.type !== 'objectsChanged') {
        throw invalid(`effects.${i}.parameters.${name}`, 'Only an objectsChanged condition has an object to take parameters from.');
      }
      if (source.from === 'property' && !Object.hasOwn(watched!.type.properties, source.property)) {
        throw invalid(`effects.${i}.parameters.${name}.property`, `${watched!.type.apiName} has no property ${source.property}.`);
      }
    }
  }
}
