import type { ActionType } from '../../schemas/ontology-actions.ts';
import { formatPath, type Problem, problem, reportedProblems } from '../../schemas/problems.ts';
import type { ModuleDefinition, ObjectSetBinding } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { listActionTypes, listObjectTypes } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';

/** `=input.<variable>`: the only expression a module's values take (a page variable). */
export const VARIABLE_REF = /^=input\.([a-z][a-z0-9_]{0,39})$/;

type Path = (string | number)[];

/**
 * Checks a definition against the company's ontology as the saver sees it (types and actions it
 * may not see do not exist): every bound object type, property and action exists, and every `=…`
 * names a declared variable. Failures are 422 definition_invalid with each path.
 */
export async function checkDefinition(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  cellId: string,
  definition: ModuleDefinition,
): Promise<void> {
  const needsOntology = definition.pages.some((p) => p.widgets.some((w) => w.type !== 'markdown'));
  const types = needsOntology ? await visible(() => listObjectTypes(deps, principal, cellId)) : [];
  const actions: ActionType[] = needsOntology ? await visible(() => listActionTypes(deps, principal, cellId)) : [];
  const typeNamed = new Map(types.map((t) => [t.apiName, new Set(Object.keys(t.properties))]));
  const actionNamed = new Map(actions.map((a) => [a.apiName, new Set(Object.keys(a.parameters))]));
  const problems: Problem[] = [];
  const at = (path: Path, code: string, message: string) => problems.push(problem(formatPath('definition', path), code, message));

  const refs = (value: unknown, path: Path) => {
    const values = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : [value];
    values.forEach((v) => {
      if (typeof v !== 'string' || !v.startsWith('=')) return;
      const m = VARIABLE_REF.exec(v);
      if (!m) at(path, 'invalid_expression', 'a module value takes `=input.<variable>` only');
      else if (!(m[1]! in definition.variables)) at(path, 'unknown_variable', `no variable ${m[1]} is declared`);
    });
  };
  const property = (type: string, name: string, path: Path) => {
    const props = typeNamed.get(type);
    if (props && !props.has(name)) at(path, 'property_not_found', `${type} has no property ${name}`);
  };
  const properties = (type: string, names: readonly string[], path: Path) => {
    for (const [i, name] of names.entries()) property(type, name, [...path, i]);
  };
  const objectType = (type: string, path: Path) => {
    if (!typeNamed.has(type)) at(path, 'object_type_not_found', `no object type ${type}`);
  };
  const binding = (b: ObjectSetBinding, path: Path) => {
    objectType(b.objectType, [...path, 'objectType']);
    for (const [field, rule] of Object.entries(b.where)) {
      property(b.objectType, field, [...path, 'where', field]);
      refs(rule, [...path, 'where', field]);
    }
    properties(
      b.objectType,
      b.sort.map((k) => k.replace(/^-/, '')),
      [...path, 'sort'],
    );
  };

  definition.pages.forEach((page, p) => {
    page.widgets.forEach((w, i) => {
      const path: Path = ['pages', p, 'widgets', i];
      switch (w.type) {
        case 'table':
          binding(w.objectSet, [...path, 'objectSet']);
          properties(w.objectSet.objectType, w.columns, [...path, 'columns']);
          break;
        case 'objectView':
          objectType(w.objectType, [...path, 'objectType']);
          properties(w.objectType, w.properties, [...path, 'properties']);
          refs(w.primaryKey, [...path, 'primaryKey']);
          break;
        case 'metric':
        case 'chart':
          binding(w.objectSet, [...path, 'objectSet']);
          if ('field' in w.aggregation) property(w.objectSet.objectType, w.aggregation.field, [...path, 'aggregation', 'field']);
          if (w.type === 'chart') property(w.objectSet.objectType, w.groupBy, [...path, 'groupBy']);
          break;
        case 'form': {
          const params = actionNamed.get(w.action);
          if (!params) at([...path, 'action'], 'action_type_not_found', `no action type ${w.action}`);
          for (const [name, value] of Object.entries(w.defaults)) {
            if (params && !params.has(name)) at([...path, 'defaults', name], 'parameter_not_found', `${w.action} has no parameter ${name}`);
            refs(value, [...path, 'defaults', name]);
          }
          break;
        }
        case 'markdown':
          break;
      }
    });
  });
  if (problems.length > 0) {
    throw new DomainError('definition_invalid', 'The module definition does not match the company’s ontology.', {
      details: reportedProblems(problems),
    });
  }
}

/** An ontology the caller cannot reach at all holds nothing it may bind. */
async function visible<T>(list: () => Promise<T[]>): Promise<T[]> {
  try {
    return await list();
  } catch (err) {
    if (err instanceof DomainError && err.code === 'ontology_not_found') return [];
    throw err;
  }
}
