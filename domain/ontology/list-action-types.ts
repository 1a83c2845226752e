import type { ActionType } from '../../schemas/ontology-actions.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { actionTypeWire, listActionTypeRecords } from './action-types.ts';
import { runnableAction } from './apply-action.ts';
import { mayRun, openOntology } from './data-access.ts';

/** The action types of an ontology the caller may run, by apiName. */
export async function listActionTypes(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ontology: string): Promise<ActionType[]> {
  const open = await openOntology(deps, principal, ontology);
  return (await listActionTypeRecords(deps.db, open.ontology.id)).filter((a) => mayRun(open.access, a.apiName)).map(actionTypeWire);
}

export async function getActionType(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ontology: string, apiName: string) {
  return actionTypeWire((await runnableAction(deps, principal, ontology, apiName)).action);
}
