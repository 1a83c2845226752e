import { problem, reportedProblems } from '../../schemas/problems.ts';
import type {
  EvaluateInput,
  EvaluateResult,
  ModuleDefinition,
  ObjectSetBinding,
  Page,
  Widget,
  WidgetResult,
} from '../../schemas/workshop.ts';
import { exportQuery } from '../app-workflows/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { aggregateObjects, getActionType, getObject, getObjectType, searchObjects } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { VARIABLE_REF } from './check-definition.ts';
import { moduleFor, moduleRid, type OpenedModule, versionFor } from './repository.ts';

type Deps = { db: DbOrTrx; clock: Clock };
type Scalar = string | number | boolean | null;
type Variables = Record<string, Scalar>;

/** Refusals and query faults that concern one widget for this caller: the widget answers them, the page still renders. */
const WIDGET_ERRORS = new Set([
  'ontology_not_found',
  'object_type_not_found',
  'object_not_found',
  'action_type_not_found',
  'property_not_found',
  'query_invalid',
  'invalid_payload',
  'forbidden',
]);

/** The page of a version, or workshop_page_not_found. */
export function pageOf(definition: ModuleDefinition, rid: string, version: number, id: string): Page {
  const page = definition.pages.find((p) => p.id === id);
  if (!page) throw new DomainError('workshop_page_not_found', `Version ${version} of ${rid} has no page ${id}.`, { details: { page: id } });
  return page;
}

/** The module, the version the caller opens (evaluate and auto-refresh share it) and the page asked for. */
export async function openPage(deps: Deps, principal: Principal, rid: string, input: { page: string; version?: number | undefined }) {
  const opened = await moduleFor(deps, principal, rid, 'workshop.read');
  const version = await versionFor(deps.db, opened, input.version);
  return { opened, version, page: pageOf(version.definition, rid, version.version, input.page) };
}

/**
 * Computes one page's widgets for the caller: every read goes through the data layer's own use
 * cases as the caller (its readable types, object security, markings), so the answer never holds
 * an object or property the caller could not read directly. A widget the caller cannot compute
 * (a type it may not read, an action it may not run) answers its error; the rest still render.
 */
export async function evaluateModulePage(deps: Deps, principal: Principal, rid: string, input: EvaluateInput): Promise<EvaluateResult> {
  const { opened, version, page } = await openPage(deps, principal, rid, input);
  const variables = variablesOf(version.definition, input.variables);
  const widgets: WidgetResult[] = [];
  for (const w of page.widgets) {
    const head = { id: w.id, type: w.type, ...(w.title ? { title: w.title } : {}) };
    try {
      widgets.push({ ...head, ...(await evaluateWidget(deps, principal, opened, w, variables, input.pageTokens[w.id])) });
    } catch (err) {
      if (!(err instanceof DomainError) || !WIDGET_ERRORS.has(err.code)) throw err;
      widgets.push({ ...head, error: { code: err.code, message: err.message } });
    }
  }
  return {
    rid: moduleRid(opened.row.id),
    version: version.version,
    page: { id: page.id, title: page.title, autoRefresh: page.autoRefresh },
    widgets,
  };
}

/** The definition's defaults overlaid with the caller's values; an undeclared variable or a value of another type is invalid_payload. */
function variablesOf(definition: ModuleDefinition, given: Variables): Variables {
  const problems = Object.entries(given).flatMap(([name, value]) => {
    const declared = Object.hasOwn(definition.variables, name) ? definition.variables[name] : undefined;
    if (!declared) return [problem(`variables.${name}`, 'unrecognized_key', 'no such variable in this module')];
    return value === null || typeof value === declared.type
      ? []
      : [problem(`variables.${name}`, 'invalid_type', `must be a ${declared.type}`)];
  });
  if (problems.length > 0) throw new DomainError('invalid_payload', undefined, { details: reportedProblems(problems) });
  const defaults = Object.fromEntries(Object.entries(definition.variables).map(([name, v]) => [name, v.default ?? null]));
  return { ...defaults, ...given };
}

const resolve = (value: Scalar, variables: Variables): Scalar => {
  const m = typeof value === 'string' ? VARIABLE_REF.exec(value) : null;
  return m ? (variables[m[1]!] ?? null) : value;
};

type InputKind = 'text' | 'number' | 'boolean';
const NUMBERS = new Set(['integer', 'long', 'double', 'float', 'short', 'byte', 'decimal']);

/** How a form enters each parameter: an object reference as its type's primary key (a long key is a number), a number, a boolean or text. */
async function formInputs(deps: Deps, principal: Principal, ontology: string, parameters: Record<string, { dataType: unknown }>) {
  const kinds: Record<string, InputKind> = {};
  for (const [name, p] of Object.entries(parameters)) {
    const type = p.dataType as { type: string; objectType?: string };
    let scalar = type.type;
    if (type.type === 'objectReference' && type.objectType) {
      const target = await getObjectType(deps, principal, ontology, type.objectType).catch(() => undefined);
      scalar = (target?.properties[target.primaryKey]?.dataType as { type: string } | undefined)?.type ?? 'string';
    }
    kinds[name] = scalar === 'boolean' ? 'boolean' : NUMBERS.has(scalar) ? 'number' : 'text';
  }
  return kinds;
}

/** A binding as the query export it reads like: the data layer's search request with the variables as `input`. */
function searchOf(binding: ObjectSetBinding, select: readonly string[], variables: Variables) {
  return exportQuery(
    {
      name: 'widget',
      title: 'widget',
      description: '',
      input: {},
      kind: 'query',
      type: binding.objectType,
      where: binding.where,
      select: [...select],
      sort: binding.sort,
      limit: binding.limit,
    },
    variables,
  );
}

async function evaluateWidget(
  deps: Deps,
  principal: Principal,
  opened: OpenedModule,
  w: Widget,
  variables: Variables,
  pageToken: string | undefined,
): Promise<Partial<WidgetResult>> {
  const ontology = opened.row.cell_id;
  switch (w.type) {
    case 'table': {
      const request = { ...(await searchOf(w.objectSet, w.columns, variables)), ...(pageToken ? { pageToken } : {}) };
      const page = await searchObjects(deps, principal, { ontology, objectType: w.objectSet.objectType, request });
      return {
        objects: page.data,
        columns: w.columns,
        totalCount: page.totalCount,
        ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      };
    }
    case 'objectView': {
      const key = resolve(w.primaryKey, variables);
      if (key === null) return { object: null };
      const select = w.properties.length > 0 ? w.properties : undefined;
      try {
        return { object: await getObject(deps, principal, { ontology, objectType: w.objectType, primaryKey: String(key), select }) };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'object_not_found') return { object: null };
        throw err;
      }
    }
    case 'metric': {
      const { where } = await searchOf(w.objectSet, [], variables);
      const answer = await aggregateObjects(deps, principal, {
        ontology,
        objectType: w.objectSet.objectType,
        request: { aggregation: [{ ...w.aggregation, name: 'value' }], where, groupBy: [] },
      });
      return { value: answer.data[0]?.metrics[0]?.value ?? null };
    }
    case 'chart': {
      const { where } = await searchOf(w.objectSet, [], variables);
      const answer = await aggregateObjects(deps, principal, {
        ontology,
        objectType: w.objectSet.objectType,
        request: {
          aggregation: [{ ...w.aggregation, name: 'value' }],
          where,
          groupBy: [{ type: 'exact', field: w.groupBy, maxGroupCount: w.objectSet.limit }],
        },
      });
      return {
        chart: w.chart,
        groups: answer.data.map((g) => ({ key: g.group[w.groupBy] ?? null, value: g.metrics[0]?.value ?? null })),
      };
    }
    case 'form': {
      const action = await getActionType(deps, principal, ontology, w.action);
      return {
        action: { apiName: action.apiName, displayName: action.displayName, parameters: action.parameters },
        inputs: await formInputs(deps, principal, ontology, action.parameters),
        defaults: Object.fromEntries(Object.entries(w.defaults).map(([name, value]) => [name, resolve(value, variables)])),
      };
    }
    case 'markdown':
      return { text: w.text };
  }
}
