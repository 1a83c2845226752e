import type { Manifest } from '../../schemas/manifest/index.ts';
import { type Problem, problem } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import { capabilityCatalog } from './capabilities.ts';
import { expressionsOf } from './evaluate-step.ts';
import { ExpressionError, MAX_PER_ITEM_NESTING, parseExpression, perItemNesting } from './expression.ts';
import { companyRecipients } from './recipients.ts';

const path = (index: number, rest: string) => `manifest.workflow.steps[${index}]${rest.startsWith('[') ? '' : '.'}${rest}`;

/**
 * Deploy-time checks of a manifest's workflow against the company (the parts a pure schema
 * cannot see): `use` steps name a runnable capability of the catalog with its required input;
 * notify recipients are accounts of the company; every `=` expression parses and nests `map` and
 * `filter` at most MAX_PER_ITEM_NESTING deep (the runtime budget stops any expression; this refuses
 * the obviously explosive ones at deploy, where the author sees them); a step in a lane
 * reads no step of another lane running beside it.
 */
export async function checkWorkflow(db: DbOrTrx, companyId: string | null, manifest: Manifest): Promise<Problem[]> {
  const workflow = manifest.workflow;
  if (!workflow) return [];
  const problems: Problem[] = [];
  const catalog = new Map((await capabilityCatalog(db, companyId)).map((c) => [c.name, c]));
  const known = await companyRecipients(
    db,
    companyId,
    workflow.steps.flatMap((s) => (s.kind === 'notify' ? s.to : [])),
  );

  // Lanes: consecutive laned steps run together; a step may not read another lane of its group.
  let group = new Map<string, string>();
  workflow.steps.forEach((step, i) => {
    if (step.lane === undefined) group = new Map();
    for (const [text, at] of expressionsOf(step)) {
      try {
        if (perItemNesting(parseExpression(text)) > MAX_PER_ITEM_NESTING)
          problems.push(
            problem(
              path(i, at),
              'expression_too_costly',
              `map and filter nest more than ${MAX_PER_ITEM_NESTING} deep: each level multiplies the work by a list's length`,
            ),
          );
      } catch (err) {
        if (err instanceof ExpressionError) problems.push(problem(path(i, at), 'expression_invalid', err.message));
        else throw err;
      }
      for (const m of text.matchAll(/\bsteps\.([A-Za-z_][A-Za-z0-9_]*)/g)) {
        const lane = group.get(m[1] ?? '');
        if (step.lane !== undefined && lane !== undefined && lane !== step.lane)
          problems.push(problem(path(i, at), 'lane_reference', `steps.${m[1]} runs in lane ${lane}, beside this step's lane ${step.lane}`));
      }
    }
    if (step.lane !== undefined) group.set(step.id, step.lane);

    if (step.kind === 'use') {
      const capability = catalog.get(step.capability);
      if (!capability)
        problems.push(
          problem(path(i, 'capability'), 'capability_unknown', `${step.capability} is not in the company's capability catalog`),
        );
      else if (!capability.runnable)
        problems.push(problem(path(i, 'capability'), 'capability_unavailable', `${step.capability}: ${capability.reason}`));
      else {
        for (const [name, p] of Object.entries(capability.input)) {
          if (p.required && !(name in step.input))
            problems.push(problem(path(i, `input.${name}`), 'input_missing', `${step.capability} needs ${name}`));
        }
        for (const name of Object.keys(step.input)) {
          if (!(name in capability.input))
            problems.push(problem(path(i, `input.${name}`), 'input_unknown', `${step.capability} takes no ${name}`));
        }
      }
    }
    if (step.kind === 'notify') {
      step.to.forEach((email, j) => {
        if (!known.has(email.toLowerCase()))
          problems.push(problem(path(i, `to[${j}]`), 'recipient_unknown', `${email} is not an active account of this company`));
      });
    }
  });
  return problems;
}
