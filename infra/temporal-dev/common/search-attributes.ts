// Search attributes: the system and predefined ones, the custom ones the server knows (registered
// by --search-attribute, the `searchAttributes` option or OperatorService), validation of the values
// a start, a schedule or a workflow sets (Temporal's INVALID_ARGUMENT messages) and the type
// Temporal adds to the payloads it hands out.

import type { ServerContext } from './context.ts';
import { IndexedValueType } from './enums.ts';
import type { Msg } from './proto.ts';

/** Kept as fields of the run, never set through SearchAttributes. */
const SYSTEM_ATTRIBUTES: Record<string, number> = {
  WorkflowId: IndexedValueType.KEYWORD,
  RunId: IndexedValueType.KEYWORD,
  WorkflowType: IndexedValueType.KEYWORD,
  ExecutionStatus: IndexedValueType.KEYWORD,
  TaskQueue: IndexedValueType.KEYWORD,
  StartTime: IndexedValueType.DATETIME,
  CloseTime: IndexedValueType.DATETIME,
  ExecutionTime: IndexedValueType.DATETIME,
  HistoryLength: IndexedValueType.INT,
  HistorySizeBytes: IndexedValueType.INT,
  StateTransitionCount: IndexedValueType.INT,
  // Nanoseconds from execution time to close; unset while running.
  ExecutionDuration: IndexedValueType.INT,
  // The run's tree: a root run's root is itself; a run without a parent has no Parent*.
  RootWorkflowId: IndexedValueType.KEYWORD,
  RootRunId: IndexedValueType.KEYWORD,
  ParentWorkflowId: IndexedValueType.KEYWORD,
  ParentRunId: IndexedValueType.KEYWORD,
  // Worker versioning: the run's deployment, version ("<deployment>:<build id>") and behavior.
  TemporalWorkerDeployment: IndexedValueType.KEYWORD,
  TemporalWorkerDeploymentVersion: IndexedValueType.KEYWORD,
  TemporalWorkflowVersioningBehavior: IndexedValueType.KEYWORD,
};

/** Temporal's predefined attributes that starts and workflows may set (its white list). */
const PREDEFINED_ATTRIBUTES: Record<string, number> = {
  TemporalNamespaceDivision: IndexedValueType.KEYWORD,
  TemporalSchedulePaused: IndexedValueType.BOOL,
  TemporalScheduledStartTime: IndexedValueType.DATETIME,
  TemporalScheduledById: IndexedValueType.KEYWORD,
  TemporalChangeVersion: IndexedValueType.KEYWORD_LIST,
  BinaryChecksums: IndexedValueType.KEYWORD_LIST,
  BuildIds: IndexedValueType.KEYWORD_LIST,
  BatcherNamespace: IndexedValueType.KEYWORD,
  BatcherUser: IndexedValueType.KEYWORD,
};

/** The custom attributes Java's time-skipping test server has registered from the start (tests rely on them). */
export const TEST_SERVER_ATTRIBUTES: Record<string, number> = {
  CustomStringField: IndexedValueType.TEXT,
  CustomTextField: IndexedValueType.TEXT,
  CustomKeywordField: IndexedValueType.KEYWORD,
  CustomIntField: IndexedValueType.INT,
  CustomDoubleField: IndexedValueType.DOUBLE,
  CustomBoolField: IndexedValueType.BOOL,
  CustomDatetimeField: IndexedValueType.DATETIME,
};

/** System and predefined attributes: what ListSearchAttributes reports as system attributes. */
export const BUILT_IN_ATTRIBUTES: Record<string, number> = { ...SYSTEM_ATTRIBUTES, ...PREDEFINED_ATTRIBUTES };

const TYPE_BY_NAME: Record<string, number> = {
  Text: IndexedValueType.TEXT,
  Keyword: IndexedValueType.KEYWORD,
  Int: IndexedValueType.INT,
  Double: IndexedValueType.DOUBLE,
  Bool: IndexedValueType.BOOL,
  Datetime: IndexedValueType.DATETIME,
  KeywordList: IndexedValueType.KEYWORD_LIST,
};
const NAME_BY_TYPE = new Map(Object.entries(TYPE_BY_NAME).map(([name, type]) => [type, name]));

/** IndexedValueType by Temporal's short name (`Keyword`, `Int`, ...). */
export function indexedValueType(name: string): number | undefined {
  return TYPE_BY_NAME[name];
}

/** Temporal's short name of an IndexedValueType, as its messages print it. */
export function typeName(type: number): string {
  return NAME_BY_TYPE.get(type) ?? 'Unspecified';
}

/** Where the registered (custom) attributes are found: the server, or a namespace that hands them on. */
export type Registered = Pick<ServerContext, 'searchAttributeTypes'>;

/** The type of a built-in or registered attribute; undefined when the server does not know the name. */
function searchAttributeType(server: Registered, name: string): number | undefined {
  return BUILT_IN_ATTRIBUTES[name] ?? server.searchAttributeTypes.get(name);
}

/**
 * Why Temporal refuses these search attributes (its INVALID_ARGUMENT message), or undefined when
 * they are fine. Unset values (null, [], empty data) are fine for any known name.
 */
export function searchAttributesError(server: Registered, fields: Record<string, Msg> | undefined): string | undefined {
  for (const [name, payload] of Object.entries(fields ?? {})) {
    if (SYSTEM_ATTRIBUTES[name] !== undefined) return `${name} attribute can't be set in SearchAttributes`;
    const type = searchAttributeType(server, name);
    if (type === undefined) return `search attribute ${name} is not defined`;
    const decoded = decode(payload);
    if (!decoded.ok || !fitsType(decoded.value, type)) {
      return `invalid value for search attribute ${name} of type ${typeName(type)}: ${decoded.ok ? goFormat(decoded.value) : 'value from <payload>'}`;
    }
  }
  return undefined;
}

/**
 * The payloads with their type in the metadata, as Temporal's frontend and history annotate the
 * search attributes they return (so the SDK's typed search attributes see values set untyped).
 */
export function withTypes(server: Registered, fields: Record<string, Msg>): Record<string, Msg> {
  const out: Record<string, Msg> = {};
  for (const [name, payload] of Object.entries(fields)) {
    const type = searchAttributeType(server, name);
    const unset = isUnset(payload);
    out[name] =
      payload.metadata?.type || unset || type === undefined
        ? payload
        : { ...payload, metadata: { ...payload.metadata, type: Buffer.from(typeName(type)) } };
  }
  return out;
}

/** A null, empty-list or empty payload: upserting it removes the attribute (memo field). */
export function isUnset(payload: Msg | undefined): boolean {
  const data = payload?.data ? Buffer.from(payload.data).toString('utf8') : '';
  return data === '' || data === 'null' || data === '[]';
}

function decode(payload: Msg | undefined): { ok: true; value: unknown } | { ok: false } {
  if (!payload?.data?.length) return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(Buffer.from(payload.data).toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

// RFC 3339 as Go's time.Time reads it from JSON.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a decoded value is one of `type`, as Temporal decodes it (a one-element list stands for its element). */
function fitsType(value: unknown, type: number): boolean {
  if (value === null) return true;
  if (type === IndexedValueType.KEYWORD_LIST) return Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (Array.isArray(value)) return value.length === 0 || (value.length === 1 && fitsType(value[0], type));
  switch (type) {
    case IndexedValueType.KEYWORD:
    case IndexedValueType.TEXT:
      return typeof value === 'string';
    case IndexedValueType.INT:
      return Number.isInteger(value);
    case IndexedValueType.DOUBLE:
      return typeof value === 'number';
    case IndexedValueType.BOOL:
      return typeof value === 'boolean';
    case IndexedValueType.DATETIME:
      return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
    default:
      return false;
  }
}

/** A decoded JSON value as Go's `%v` prints it, for Temporal's messages. */
function goFormat(value: unknown): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `map[${entries.map(([k, v]) => `${k}:${goFormat(v)}`).join(' ')}]`;
  }
  return String(value);
}
