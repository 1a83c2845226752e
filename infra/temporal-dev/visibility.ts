// Visibility: execution info, Describe, and List/Count with a subset of Temporal's SQL-like
// query language: comparisons (= != > >= < <=), IN, BETWEEN, STARTS_WITH, IS [NOT] NULL,
// AND/OR/parentheses, ORDER BY (ignored; newest first) and Count's GROUP BY ExecutionStatus,
// with Temporal's rules on the literals and operators each attribute type takes.
// Rows are workflow runs plus each schedule's scheduler workflow (schedules.ts); like Temporal,
// rows in a namespace division (TemporalNamespaceDivision set) only match queries that name it.
import { IndexedValueType, PendingWorkflowTaskState, Status, TaskQueueKind, VersioningBehavior } from './enums.ts';
import { invalidArgument } from './errors.ts';
import type { Namespace, ServerState } from './namespaces.ts';
import type { Msg } from './proto.ts';
import { parseGoDuration } from './schedule-spec.ts';
import { BUILT_IN_ATTRIBUTES, typeName } from './search-attributes.ts';
import { msToProto } from './time.ts';
import type { Execution } from './workflow-execution.ts';

const STATUS_NAMES = new Map<number, string>([
  [Status.RUNNING, 'Running'],
  [Status.COMPLETED, 'Completed'],
  [Status.FAILED, 'Failed'],
  [Status.CANCELED, 'Canceled'],
  [Status.TERMINATED, 'Terminated'],
  [Status.CONTINUED_AS_NEW, 'ContinuedAsNew'],
  [Status.TIMED_OUT, 'TimedOut'],
]);

const BEHAVIOR_NAMES = new Map<number, string>([
  [VersioningBehavior.PINNED, 'Pinned'],
  [VersioningBehavior.AUTO_UPGRADE, 'AutoUpgrade'],
]);

export type Value = string | number | boolean | null | Value[];

/** One visibility record: a workflow run, or a schedule's scheduler workflow. */
export interface VisibilityRow {
  /** A search attribute's value (system or custom) as queries compare it; null when unset. */
  value(field: string): Value;
  /** The WorkflowExecutionInfo that List returns. */
  info(): Msg;
}

function executionRow(exec: Execution): VisibilityRow {
  return { value: (field) => fieldValue(exec, field), info: () => executionInfo(exec) };
}

function executionInfo(exec: Execution): Msg {
  const o = exec.options;
  return {
    execution: exec.ref,
    type: o.workflowType,
    startTime: msToProto(exec.startTime),
    closeTime: exec.closeTime !== undefined ? msToProto(exec.closeTime) : undefined,
    executionDuration: exec.closeTime !== undefined ? msToProto(exec.closeTime - exec.executionTime) : undefined,
    status: exec.status,
    historyLength: exec.history.lastEventId,
    historySizeBytes: exec.history.sizeBytes,
    stateTransitionCount: exec.stateTransitionCount,
    parentNamespaceId: o.parent?.namespaceId,
    parentExecution: o.parent?.execution,
    rootExecution: o.rootExecution ?? exec.ref,
    executionTime: msToProto(exec.executionTime),
    memo: { fields: exec.memo },
    searchAttributes: { indexedFields: { ...exec.searchAttributes, ...versioningAttributes(exec) } },
    taskQueue: o.taskQueue,
    firstRunId: o.firstRunId,
    priority: o.priority,
    versioningInfo: exec.versioningInfo(),
  };
}

/** Temporal sets these system attributes on versioned runs, and Describe and List show them (the Web UI reads them there). */
const VERSIONING_ATTRIBUTES = ['TemporalWorkerDeployment', 'TemporalWorkerDeploymentVersion', 'TemporalWorkflowVersioningBehavior'];

function versioningAttributes(exec: Execution): Record<string, Msg> {
  const out: Record<string, Msg> = {};
  for (const name of VERSIONING_ATTRIBUTES) {
    const value = fieldValue(exec, name);
    if (typeof value === 'string') out[name] = keywordPayload(value);
  }
  return out;
}

/** DescribeWorkflowExecution, with the fields Temporal's history service fills (no Nexus or callbacks). */
export function describeExecution(exec: Execution): Msg {
  const o = exec.options;
  const wt = exec.pendingWorkflowTask;
  const runExpiration = exec.runExpirationTime;
  return {
    executionConfig: {
      taskQueue: { name: o.taskQueue, kind: TaskQueueKind.NORMAL },
      workflowExecutionTimeout: o.executionTimeoutMs ? msToProto(o.executionTimeoutMs) : undefined,
      workflowRunTimeout: o.runTimeoutMs ? msToProto(o.runTimeoutMs) : undefined,
      defaultWorkflowTaskTimeout: msToProto(o.taskTimeoutMs),
      userMetadata: o.userMetadata,
    },
    workflowExecutionInfo: executionInfo(exec),
    pendingWorkflowTask: wt && {
      state: wt.startedTime === undefined ? PendingWorkflowTaskState.SCHEDULED : PendingWorkflowTaskState.STARTED,
      scheduledTime: msToProto(wt.scheduledTime),
      // Temporal's differs only for a speculative task made normal, which this server has not.
      originalScheduledTime: msToProto(wt.scheduledTime),
      startedTime: wt.startedTime === undefined ? undefined : msToProto(wt.startedTime),
      attempt: wt.attempt,
    },
    workflowExtendedInfo: {
      executionExpirationTime: o.expirationTime ? msToProto(o.expirationTime) : undefined,
      runExpirationTime: runExpiration === undefined ? undefined : msToProto(runExpiration),
      cancelRequested: exec.cancelRequested,
      originalStartTime: msToProto(exec.startTime),
      resetRunId: exec.resetRunId,
      lastResetTime: exec.resetTime === undefined ? undefined : msToProto(exec.resetTime),
    },
    pendingActivities: [...exec.activities.values()].map((a) => ({
      activityId: a.activityId,
      activityType: a.attrs.activityType,
      state: a.pendingState,
      heartbeatDetails: a.heartbeatDetails,
      lastHeartbeatTime: a.lastHeartbeatTime !== undefined ? msToProto(a.lastHeartbeatTime) : undefined,
      lastStartedTime: a.startedTime !== undefined ? msToProto(a.startedTime) : undefined,
      attempt: a.attempt,
      maximumAttempts: a.attrs.retryPolicy?.maximumAttempts ?? 0,
      scheduledTime: a.describedScheduledTime === undefined ? undefined : msToProto(a.describedScheduledTime),
      nextAttemptScheduleTime:
        a.state === 'backoff' && a.describedScheduledTime !== undefined ? msToProto(a.describedScheduledTime) : undefined,
      lastFailure: a.lastFailure,
      lastWorkerIdentity: a.startedIdentity,
      ...a.pauseDescription(),
      priority: a.attrs.priority,
    })),
    pendingChildren: [...exec.children.entries()].map(([initiatedId, c]) => ({
      workflowId: c.workflowId,
      runId: c.runId,
      workflowTypeName: c.workflowType?.name,
      initiatedId,
      parentClosePolicy: c.parentClosePolicy,
    })),
  };
}

export function searchAttributeKeys(server: ServerState): Record<string, number> {
  return { ...BUILT_IN_ATTRIBUTES, ...Object.fromEntries(server.searchAttributeTypes) };
}

export function isSystemSearchAttribute(name: string): boolean {
  return BUILT_IN_ATTRIBUTES[name] !== undefined;
}

export function listExecutions(server: ServerState, ns: Namespace, req: Msg): Msg {
  const matches = queryRows(server, newestFirst(ns), req.query ?? '');
  const { page, nextPageToken } = pageOf(matches, req.nextPageToken, req.pageSize);
  return { executions: page.map((r) => r.info()), nextPageToken };
}

export function countExecutions(server: ServerState, ns: Namespace, req: Msg): Msg {
  const { predicate, groupBy } = parseQuery(server, req.query ?? '');
  const matches = newestFirst(ns).filter(predicate);
  if (!groupBy) return { count: matches.length };
  const groups = new Map<string, number>();
  for (const row of matches) {
    const name = String(row.value('ExecutionStatus') ?? 'Unspecified');
    groups.set(name, (groups.get(name) ?? 0) + 1);
  }
  // In status order, as Temporal's SQL stores return the groups (the SDK's count test expects Running first).
  const rank = (name: string) => [...STATUS_NAMES].find(([, n]) => n === name)?.[0] ?? Number.MAX_SAFE_INTEGER;
  return {
    count: matches.length,
    groups: [...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([name, count]) => ({ groupValues: [keywordPayload(name)], count })),
  };
}

/** The rows matching a visibility query, in the given order. */
export function queryRows<R extends VisibilityRow>(server: ServerState, rows: R[], query: string, extra?: Record<string, number>): R[] {
  return rows.filter(parseQuery(server, query, extra).predicate);
}

/** Offset paging as List calls do it (the token is the offset of the next page). */
export function pageOf<T>(
  items: T[],
  token: Uint8Array | null | undefined,
  pageSize: number | null | undefined,
): { page: T[]; nextPageToken?: Buffer } {
  const offset = token?.length ? Number(Buffer.from(token).toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('Invalid NextPageToken.');
  const page = items.slice(offset, offset + (pageSize || 1000));
  const next = offset + page.length;
  return { page, nextPageToken: next < items.length ? Buffer.from(String(next)) : undefined };
}

/** Runs and scheduler workflows, newest first. */
function newestFirst(ns: Namespace): VisibilityRow[] {
  const rows = [...ns.runs].reverse().map(executionRow);
  const schedules = ns.schedules.visibilityRows();
  if (schedules.length === 0) return rows;
  return [...rows, ...schedules].sort((a, b) => Number(b.value('StartTime')) - Number(a.value('StartTime')));
}

function keywordPayload(value: string): Msg {
  return {
    metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
    data: Buffer.from(JSON.stringify(value)),
  };
}

/** Decodes a search attribute payload (json/plain) into a comparable value. */
export function payloadValue(payload: Msg | undefined): Value {
  if (!payload?.data?.length) return null;
  try {
    return JSON.parse(Buffer.from(payload.data).toString('utf8')) as Value;
  } catch {
    return null;
  }
}

function fieldValue(exec: Execution, field: string): Value {
  switch (field) {
    case 'WorkflowId':
      return exec.workflowId;
    case 'RunId':
      return exec.runId;
    case 'WorkflowType':
      return exec.options.workflowType.name;
    case 'ExecutionStatus':
      return STATUS_NAMES.get(exec.status) ?? null;
    case 'TaskQueue':
      return exec.options.taskQueue;
    case 'StartTime':
      return exec.startTime;
    case 'CloseTime':
      return exec.closeTime ?? null;
    case 'ExecutionTime':
      return exec.executionTime;
    case 'HistoryLength':
      return exec.history.lastEventId;
    case 'HistorySizeBytes':
      return exec.history.sizeBytes;
    case 'StateTransitionCount':
      return exec.stateTransitionCount;
    case 'ExecutionDuration':
      return exec.closeTime === undefined ? null : (exec.closeTime - exec.executionTime) * 1e6;
    case 'RootWorkflowId':
      return (exec.options.rootExecution ?? exec.ref).workflowId;
    case 'RootRunId':
      return (exec.options.rootExecution ?? exec.ref).runId;
    case 'ParentWorkflowId':
      return exec.options.parent?.execution.workflowId ?? null;
    case 'ParentRunId':
      return exec.options.parent?.execution.runId ?? null;
    case 'TemporalWorkerDeployment':
      return exec.versioning.version?.deploymentName ?? null;
    case 'TemporalWorkerDeploymentVersion': {
      const v = exec.versioning.version;
      return v ? `${v.deploymentName}:${v.buildId}` : null;
    }
    case 'TemporalWorkflowVersioningBehavior':
      return BEHAVIOR_NAMES.get(exec.behavior) ?? null;
    default:
      return payloadValue(exec.searchAttributes[field]);
  }
}

// ---- query parser ----

type Predicate = (row: VisibilityRow) => boolean;
type Token = { kind: 'word' | 'string' | 'number' | 'op' | 'punct'; text: string };

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(`[^`]*`|[A-Za-z_][A-Za-z0-9_]*)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)|(!=|<>|>=|<=|=|>|<)|([(),]))/y;
  let pos = 0;
  while (pos < query.length) {
    if (/^\s*$/.test(query.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(query);
    if (!m) throw invalidArgument(`invalid query: unexpected input at "${query.slice(pos, pos + 20)}"`);
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: 'word', text: m[1].replace(/`/g, '') });
    else if (m[2]) tokens.push({ kind: 'string', text: m[2].slice(1, -1).replace(/\\(.)/g, '$1') });
    else if (m[3]) tokens.push({ kind: 'number', text: m[3] });
    else if (m[4]) tokens.push({ kind: 'op', text: m[4] === '<>' ? '!=' : m[4] });
    else if (m[5]) tokens.push({ kind: 'punct', text: m[5] });
  }
  return tokens;
}

/** `extra`: attributes (name to IndexedValueType) the rows have besides the search attributes (standalone activities' ActivityId...). */
function parseQuery(server: ServerState, query: string, extra?: Record<string, number>): { predicate: Predicate; groupBy?: string } {
  const tokens = tokenize(query);
  let i = 0;
  const peek = () => tokens[i];
  const isWord = (w: string) => peek()?.kind === 'word' && peek()!.text.toUpperCase() === w;
  const expectWord = (w: string) => {
    if (!isWord(w)) throw invalidArgument(`invalid query: expected ${w}`);
    i++;
  };
  const expectPunct = (p: string) => {
    if (peek()?.text !== p) throw invalidArgument(`invalid query: expected "${p}"`);
    i++;
  };
  const known = { ...searchAttributeKeys(server), ...extra };

  const literal = (field: string): Value => {
    const t = tokens[i++];
    if (!t) throw invalidArgument('invalid query: missing value');
    let v: Value;
    if (t.kind === 'string') v = t.text;
    else if (t.kind === 'number') v = Number(t.text);
    else if (t.kind === 'word' && /^(true|false)$/i.test(t.text)) v = t.text.toLowerCase() === 'true';
    else throw invalidArgument(`invalid query: unexpected "${t.text}"`);
    if (field === 'ExecutionDuration' && typeof v === 'string') return executionDurationNanos(v);
    return typedLiteral(field, known[field]!, v, t.kind === 'number' && t.text.includes('.'));
  };

  const comparison = (): Predicate => {
    const f = tokens[i++];
    if (f?.kind !== 'word') throw invalidArgument('invalid query: expected a search attribute name');
    const field = f.text;
    const type = known[field];
    if (type === undefined) throw invalidArgument(`invalid query: unknown search attribute ${field}`);
    const get = (e: VisibilityRow): Value => normalize(e.value(field), type);
    const allow = (operator: string) => {
      if (!operatorAllowed(type, operator)) {
        throw invalidArgument(
          `invalid query: operation is not supported: operator '${operator}' not supported for ${typeName(type)} type search attribute '${field}'`,
        );
      }
    };
    // Keyword lists match a value they contain; text matches a value whose words it contains.
    const equal = (actual: Value, expected: Value): boolean =>
      type === IndexedValueType.TEXT ? containsWords(actual, expected) : matches(actual, '=', expected);
    if (isWord('IS')) {
      i++;
      const negate = isWord('NOT');
      if (negate) i++;
      expectWord('NULL');
      return (e) => (get(e) === null) !== negate;
    }
    const negated = isWord('NOT');
    if (negated) i++;
    if (isWord('IN')) {
      i++;
      allow(negated ? 'NOT IN' : 'IN');
      expectPunct('(');
      const values: Value[] = [literal(field)];
      while (peek()?.text === ',') {
        i++;
        values.push(literal(field));
      }
      expectPunct(')');
      return (e) => values.some((v) => equal(get(e), v)) !== negated;
    }
    if (isWord('BETWEEN')) {
      i++;
      allow(negated ? 'NOT BETWEEN' : 'BETWEEN');
      const low = literal(field);
      expectWord('AND');
      const high = literal(field);
      return (e) => (matches(get(e), '>=', low) && matches(get(e), '<=', high)) !== negated;
    }
    if (negated) throw invalidArgument('invalid query: NOT must precede IN or BETWEEN');
    if (isWord('STARTS_WITH')) {
      i++;
      allow('STARTS_WITH');
      const prefix = literal(field);
      return (e) => {
        const v = get(e);
        return typeof v === 'string' && typeof prefix === 'string' && v.startsWith(prefix);
      };
    }
    const op = tokens[i++];
    if (op?.kind !== 'op') throw invalidArgument(`invalid query: expected an operator after ${field}`);
    allow(op.text);
    const value = literal(field);
    if (op.text === '=') return (e) => equal(get(e), value);
    if (op.text === '!=' && (type === IndexedValueType.TEXT || type === IndexedValueType.KEYWORD_LIST)) {
      return (e) => !equal(get(e), value);
    }
    return (e) => matches(get(e), op.text, value);
  };

  const primary = (): Predicate => {
    if (peek()?.text === '(') {
      i++;
      const p = orExpr();
      expectPunct(')');
      return p;
    }
    return comparison();
  };
  const andExpr = (): Predicate => {
    const parts = [primary()];
    while (isWord('AND')) {
      i++;
      parts.push(primary());
    }
    return (e) => parts.every((p) => p(e));
  };
  const orExpr = (): Predicate => {
    const parts = [andExpr()];
    while (isWord('OR')) {
      i++;
      parts.push(andExpr());
    }
    return (e) => parts.some((p) => p(e));
  };

  let predicate: Predicate = () => true;
  if (peek() && !isWord('ORDER') && !isWord('GROUP')) predicate = orExpr();
  if (!tokens.some((t) => t.kind === 'word' && t.text === 'TemporalNamespaceDivision')) {
    const matchesQuery = predicate;
    predicate = (row) => row.value('TemporalNamespaceDivision') === null && matchesQuery(row);
  }
  let groupBy: string | undefined;
  if (isWord('GROUP')) {
    i++;
    expectWord('BY');
    const g = tokens[i++];
    if (g?.text !== 'ExecutionStatus') throw invalidArgument('invalid query: only GROUP BY ExecutionStatus is supported');
    groupBy = g.text;
  }
  if (isWord('ORDER')) {
    // Ordering is accepted for compatibility; results are always newest first.
    i++;
    expectWord('BY');
    while (peek() && peek()!.kind !== 'op') i++;
  }
  if (i < tokens.length) throw invalidArgument(`invalid query: unexpected "${tokens[i]!.text}"`);
  return groupBy ? { predicate, groupBy } : { predicate };
}

/** Operators Temporal's query converter allows per attribute type. */
function operatorAllowed(type: number, operator: string): boolean {
  switch (type) {
    case IndexedValueType.KEYWORD:
      return true;
    case IndexedValueType.KEYWORD_LIST:
      return ['=', '!=', 'IN', 'NOT IN'].includes(operator);
    case IndexedValueType.TEXT:
      return operator === '=' || operator === '!=';
    case IndexedValueType.BOOL:
      return !operator.includes('STARTS_WITH') && !operator.includes('BETWEEN');
    default:
      return !operator.includes('STARTS_WITH');
  }
}

/**
 * A literal of the attribute's type, as Temporal's query converter accepts it: numbers for Int and
 * Double, booleans for Bool, strings for the keyword and text types, RFC 3339 strings or Unix
 * nanoseconds for Datetime (returned as epoch ms).
 */
function typedLiteral(field: string, type: number, v: Value, isFloat: boolean): Value {
  const wrongType = () => {
    const goType = typeof v === 'number' ? (isFloat ? 'float64' : 'int64') : typeof v;
    const shown = typeof v === 'string' ? JSON.stringify(v) : String(v);
    return invalidArgument(
      `invalid query: invalid expression: invalid value type for search attribute ${field} of type ${typeName(type)}: ${shown} (type: ${goType})`,
    );
  };
  switch (type) {
    case IndexedValueType.INT:
    case IndexedValueType.DOUBLE:
      if (typeof v !== 'number') throw wrongType();
      return v;
    case IndexedValueType.BOOL:
      if (typeof v !== 'boolean') throw wrongType();
      return v;
    case IndexedValueType.DATETIME: {
      if (typeof v === 'number') return v / 1e6;
      if (typeof v !== 'string') throw wrongType();
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) throw invalidArgument(`invalid query: invalid expression: unable to parse datetime '${v}'`);
      return ms;
    }
    default:
      if (typeof v !== 'string') throw wrongType();
      return v;
  }
}

/**
 * ExecutionDuration compared with a string, as Temporal's converter reads it: integer nanoseconds,
 * a Go duration (`"90s"`, `"1h30m"`; what the Web UI's duration filter sends) or `[d.]hh:mm:ss`.
 */
function executionDurationNanos(text: string): number {
  if (/^-?\d+$/.test(text)) return Number(text);
  const clock = /^(?:(\d+)\.)?(\d+):(\d{2}):(\d{2})$/.exec(text);
  if (clock) return (((Number(clock[1] ?? 0) * 24 + Number(clock[2])) * 60 + Number(clock[3])) * 60 + Number(clock[4])) * 1e9;
  try {
    return parseGoDuration(text) * 1e6;
  } catch {
    throw invalidArgument(`invalid query: invalid expression: invalid value for search attribute ExecutionDuration: "${text}"`);
  }
}

/**
 * A stored value as queries compare it: a one-element list of a type other than KeywordList is its
 * element (the SDK's untyped API sets lists), datetimes are epoch ms.
 */
function normalize(v: Value, type: number): Value {
  let value = v;
  if (Array.isArray(value) && type !== IndexedValueType.KEYWORD_LIST) {
    value = value.length === 0 ? null : value.length === 1 ? value[0]! : value;
  }
  if (type !== IndexedValueType.DATETIME) return value;
  const toMs = (x: Value): Value => (typeof x === 'string' ? Date.parse(x) : x);
  return Array.isArray(value) ? value.map(toMs) : toMs(value);
}

/** Text `=`: every word of the literal is a word of the value (case-insensitive), like a full-text match. */
function containsWords(actual: Value, expected: Value): boolean {
  if (typeof actual !== 'string' || typeof expected !== 'string') return false;
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const have = new Set(words(actual));
  const want = words(expected);
  return want.length > 0 && want.every((w) => have.has(w));
}

function matches(actual: Value, op: string, expected: Value): boolean {
  // Keyword lists match when any element matches.
  if (Array.isArray(actual)) return actual.some((a) => matches(a, op, expected));
  if (actual === null) return op === '!=' ? expected !== null : false;
  switch (op) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>':
      return expected !== null && actual > expected;
    case '>=':
      return expected !== null && actual >= expected;
    case '<':
      return expected !== null && actual < expected;
    case '<=':
      return expected !== null && actual <= expected;
    default:
      throw invalidArgument(`invalid query: unsupported operator ${op}`);
  }
}
