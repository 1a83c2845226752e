import type { AutomationDryRun } from '../../schemas/automate.ts';
import type { OntologyObject } from '../../schemas/ontology.ts';
import { companyRecipients } from '../app-workflows/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { applyAction, searchObjects } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { skipReasonAt } from './begin-automation-run.ts';
import { companyForAutomations, findAutomation } from './repository.ts';
import { actionParameters, renderTemplate } from './run-automation-effect.ts';
import { thresholdValue } from './trigger-automation.ts';

const SAMPLE = 5;

/**
 * Evaluates the condition against current data, as if each object matching it had just changed
 * (objectsChanged), or as the aggregate stands (threshold), and says what each effect would do:
 * an action validated (VALIDATE_ONLY, as the caller) with the parameters of the first matching
 * object, a notification's recipients and text. Nothing is written, no run is recorded.
 */
export async function dryRunAutomation(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  id: string,
): Promise<AutomationDryRun> {
  const { db } = deps;
  const company = await companyForAutomations(db, principal, namespace);
  const automation = await findAutomation(db, company.id, id);
  const condition = automation.condition;
  let fires = automation.enabled;
  let object: OntologyObject | null = null;
  const evaluated: AutomationDryRun['condition'] = {};
  if (condition.type === 'objectsChanged') {
    // As the caller reads them: the sample shows nothing its security policies hide.
    const page = await searchObjects(deps, principal, {
      ontology: namespace,
      objectType: condition.objectType,
      request: { where: condition.where, pageSize: SAMPLE },
    });
    evaluated.matching = page.totalCount;
    evaluated.sample = page.data;
    object = page.data[0] ?? null;
    fires = page.totalCount > 0;
  } else if (condition.type === 'threshold') {
    const { value, met } = await thresholdValue(db, automation);
    evaluated.value = value;
    fires = met;
  }
  const effects: AutomationDryRun['effects'] = [];
  for (const [index, effect] of automation.effects.entries()) {
    if (effect.type === 'action') {
      const parameters = actionParameters(effect, object);
      const { validation } = await applyAction(
        deps,
        { principal, app: { namespace, slug: automation.app_slug } },
        namespace,
        effect.action,
        { parameters, options: { mode: 'VALIDATE_ONLY', returnEdits: 'NONE' } },
      );
      effects.push({ index, type: effect.type, wouldRun: fires && validation.result === 'VALID', detail: { parameters, validation } });
    } else if (effect.type === 'notify') {
      const allowed = await companyRecipients(db, company.id, effect.to);
      const detail = {
        recipients: effect.to.map((to) => ({ recipient: to, sendable: allowed.has(to.toLowerCase()) })),
        subject: renderTemplate(effect.subject, object, 250),
        body: renderTemplate(effect.body, object, 1000),
      };
      effects.push({ index, type: effect.type, wouldRun: fires, detail });
    } else {
      effects.push({ index, type: effect.type, wouldRun: fires, detail: { app: automation.app_slug } });
    }
  }
  const blocked = await skipReasonAt(db, automation, deps.clock.now());
  return { fires, condition: evaluated, effects, blockedBy: blocked ? [blocked] : [] };
}
