import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { DataType } from '../../schemas/ontology.ts';
import {
  type ActionTypeDefinition,
  type Criterion,
  DefineActionTypesRequest,
  type DefineActionTypesResult,
  type ParameterDataType,
  type ValueSource,
} from '../../schemas/ontology-actions.ts';
import { issuesToProblems, type Problem, problem, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { type ActionTypeRecord, actionTypeRid, findActionTypeRecord, saveActionType } from './action-types.ts';
import { companyToDefine } from './data-access.ts';
import { valueProblem } from './property-values.ts';
import {
  findOntologyOfCompany,
  type LinkTypeRecord,
  listLinkTypeRecords,
  listObjectTypeRecords,
  type ObjectTypeRecord,
} from './repository.ts';

type Result = z.input<typeof DefineActionTypesResult>;

const invalid = (problems: Problem[]) =>
  new DomainError('definition_invalid', undefined, {
    details: { errorName: 'InvalidActionTypeDefinition', ...reportedProblems(problems) },
  });

/** The request parsed, or 422 definition_invalid naming each path (shared with branch writes). */
export function parseActionTypes(input: unknown) {
  const parsed = DefineActionTypesRequest.safeParse(input);
  if (!parsed.success) throw invalid(issuesToProblems(parsed.error.issues, ''));
  return parsed.data;
}

/**
 * `POST /api/v1/developer/semantic/{namespace}/actionTypes`: action types created or changed, all
 * or none, each change a new version. Every name an action uses (object types, properties, link
 * types, parameters) must exist and every value must fit the property it is written to, so an
 * action that is defined can always run.
 */
export async function defineActionTypes(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  input: unknown,
): Promise<Result> {
  const { db } = deps;
  const company = await companyToDefine(deps, principal, namespace);
  return writeActionTypes(db, company.id, parseActionTypes(input), principal.account.id);
}

/** Checks and stores the action types (also the merge of a branch). */
export async function writeActionTypes(
  db: DbOrTrx,
  companyId: string,
  request: z.output<typeof DefineActionTypesRequest>,
  accountId: string | null,
): Promise<Result> {
  const ontology = await findOntologyOfCompany(db, companyId);
  if (!ontology) throw new DomainError('ontology_not_found', 'This company has no ontology yet: define object types first.');
  const types = new Map((await listObjectTypeRecords(db, ontology.id)).map((t) => [t.apiName, t]));
  const links = new Map((await listLinkTypeRecords(db, ontology.id)).map((l) => [l.apiName, l]));
  const problems = request.actionTypes.flatMap((def, i) => checkActionType(def, `actionTypes[${i}]`, types, links));
  // A writeback webhook names an https data connection of the company (its URL and sealed Authorization live there).
  const webhooks = request.actionTypes.flatMap((def, i) => (def.writebackWebhook ? [[i, def.writebackWebhook.connection] as const] : []));
  const https = webhooks.length
    ? new Set(
        (
          await db
            .selectFrom('data_connections')
            .select('name')
            .where('company_id', '=', companyId)
            .where('kind', '=', 'https')
            .where(
              'name',
              'in',
              webhooks.map(([, name]) => name),
            )
            .execute()
        ).map((c) => c.name),
      )
    : new Set<string>();
  for (const [i, name] of webhooks) {
    if (!https.has(name)) {
      problems.push(
        problem(`actionTypes[${i}].writebackWebhook.connection`, 'ConnectionNotFound', `No https data connection ${name} in this company.`),
      );
    }
  }
  if (problems.length > 0) throw invalid(problems);

  const out: Result['actionTypes'] = [];
  for (const def of [...request.actionTypes].sort((a, b) => (a.apiName < b.apiName ? -1 : 1))) {
    const existing = await findActionTypeRecord(db, ontology.id, def.apiName, { lock: true });
    if (existing && isDeepStrictEqual(existing.definition, def)) {
      out.push({ apiName: def.apiName, rid: existing.rid, version: existing.version, change: 'unchanged' });
      continue;
    }
    const id = existing?.id ?? newId('act');
    const record: ActionTypeRecord = {
      id,
      rid: actionTypeRid(id),
      ontologyId: ontology.id,
      apiName: def.apiName,
      definition: def,
      version: (existing?.version ?? 0) + 1,
    };
    await saveActionType(db, record, accountId, !existing);
    out.push({ apiName: def.apiName, rid: record.rid, version: record.version, change: existing ? 'changed' : 'created' });
  }
  return { actionTypes: out };
}

/** The type a value written from this parameter has: an objectReference gives its object's primary key. */
function valueTypeOf(p: ParameterDataType, types: ReadonlyMap<string, ObjectTypeRecord>): DataType | undefined {
  if (p.type !== 'objectReference') return p;
  const t = types.get(p.objectType);
  return t?.properties[t.primaryKey]?.dataType;
}

function checkActionType(
  def: ActionTypeDefinition,
  at: string,
  types: ReadonlyMap<string, ObjectTypeRecord>,
  links: ReadonlyMap<string, LinkTypeRecord>,
): Problem[] {
  const out: Problem[] = [];
  const params = def.parameters;
  for (const [name, p] of Object.entries(params)) {
    if (p.dataType.type === 'objectReference' && !types.has(p.dataType.objectType)) {
      out.push(problem(`${at}.parameters.${name}.dataType.objectType`, 'ObjectTypeNotFound', `No object type ${p.dataType.objectType}.`));
    }
  }
  const referenced = (name: string, path: string) => {
    const p = ownValue(params, name);
    if (!p) out.push(problem(path, 'ParameterNotFound', `No parameter ${name}.`));
    return p;
  };
  /** The object type an objectReference parameter names. */
  const objectParam = (name: string, path: string) => {
    const p = referenced(name, path);
    if (!p) return undefined;
    if (p.dataType.type !== 'objectReference') {
      out.push(problem(path, 'ParameterNotObjectReference', `Parameter ${name} is no objectReference.`));
      return undefined;
    }
    return types.get(p.dataType.objectType);
  };
  /** A value source written where `target` is expected. */
  const source = (s: ValueSource, target: DataType | undefined, path: string) => {
    if (!target) return;
    if ('parameter' in s) {
      const p = referenced(s.parameter, `${path}.parameter`);
      if (p && !isDeepStrictEqual(valueTypeOf(p.dataType, types), target)) {
        out.push(problem(`${path}.parameter`, 'ParameterTypeMismatch', `Parameter ${s.parameter} does not fit ${JSON.stringify(target)}.`));
      }
    } else if (s.value !== null) {
      const why = valueProblem(target, s.value);
      if (why) out.push(problem(`${path}.value`, 'InvalidPropertyValue', `The value ${why}.`));
    }
  };
  const assignments = (type: ObjectTypeRecord, props: Record<string, ValueSource>, path: string, creating: boolean) => {
    for (const [name, s] of Object.entries(props)) {
      const prop = type.properties[name];
      if (!prop) out.push(problem(`${path}.${name}`, 'PropertiesNotFound', `${type.apiName} has no property ${name}.`));
      else if (!creating && name === type.primaryKey)
        out.push(problem(`${path}.${name}`, 'PrimaryKeyCannotChange', 'The primary key of an object never changes.'));
      else source(s, prop.dataType, `${path}.${name}`);
    }
    if (creating && !props[type.primaryKey])
      out.push(problem(path, 'PrimaryKeyRequired', `Creating ${type.apiName} needs its primary key ${type.primaryKey}.`));
  };
  const criterion = (c: Criterion, path: string): void => {
    if ('all' in c || 'any' in c) {
      const [key, items] = 'all' in c ? (['all', c.all] as const) : (['any', c.any] as const);
      for (const [i, x] of items.entries()) criterion(x, `${path}.${key}[${i}]`);
      return;
    }
    if ('not' in c) {
      criterion(c.not, `${path}.not`);
      return;
    }
    if (c.property !== undefined) {
      const type = objectParam(c.parameter, `${path}.parameter`);
      if (type && !type.properties[c.property])
        out.push(problem(`${path}.property`, 'PropertiesNotFound', `${type.apiName} has no property ${c.property}.`));
    } else referenced(c.parameter, `${path}.parameter`);
    const list = Array.isArray(c.value);
    const fits = c.op === 'in' ? list : c.op === 'isNull' ? typeof c.value === 'boolean' : !list && c.value !== undefined;
    const wanted = c.op === 'in' ? 'a list' : c.op === 'isNull' ? 'true or false' : 'a scalar';
    if (!fits) out.push(problem(`${path}.value`, 'InvalidCriterion', `${c.op} needs ${wanted}.`));
  };
  for (const [i, c] of def.submissionCriteria.entries()) criterion(c.condition, `${at}.submissionCriteria[${i}].condition`);

  for (const [i, e] of def.edits.entries()) {
    const path = `${at}.edits[${i}]`;
    if (e.type === 'createObject') {
      const type = types.get(e.objectType);
      if (!type) out.push(problem(`${path}.objectType`, 'ObjectTypeNotFound', `No object type ${e.objectType}.`));
      else assignments(type, e.properties, `${path}.properties`, true);
    } else if (e.type === 'modifyObject') {
      const type = objectParam(e.object, `${path}.object`);
      if (type) assignments(type, e.properties, `${path}.properties`, false);
    } else if (e.type === 'deleteObject') {
      objectParam(e.object, `${path}.object`);
    } else {
      const link = links.get(e.linkType);
      if (!link) {
        out.push(problem(`${path}.linkType`, 'LinkTypeNotFound', `No link type ${e.linkType}.`));
        continue;
      }
      for (const side of ['source', 'target'] as const) {
        const t = types.get(link[side].objectType);
        source(e[side], t?.properties[t.primaryKey]?.dataType, `${path}.${side}`);
      }
    }
  }
  return out;
}
