// Visibility: execution info, Describe, and List/Count with a subset of Temporal's SQL-like
// query language: comparisons (= != > >= < <=), IN, BETWEEN, STARTS_WITH, IS [NOT] NULL,
// AND/OR/parentheses, ORDER BY (ignored; newest first) and Count's GROUP BY ExecutionStatus.
// Rows are workflow runs plus each schedule's scheduler workflow (schedules.ts); like Temporal,
// rows in a namespace division (TemporalNamespaceDivision set) only match queries that name it.
import { IndexedValueType, Status } from './enums.ts';
import { invalidArgument } from './errors.ts';
import type { Namespace, ServerState } from './namespaces.ts';
import type { Msg } from './proto.ts';
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
  TemporalNamespaceDivision: IndexedValueType.KEYWORD,
  TemporalSchedulePaused: IndexedValueType.BOOL,
  TemporalScheduledStartTime: IndexedValueType.DATETIME,
  TemporalScheduledById: IndexedValueType.KEYWORD,
};

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
    parentNamespaceId: o.parent?.namespaceId,
    parentExecution: o.parent?.execution,
    rootExecution: o.rootExecution ?? exec.ref,
    executionTime: msToProto(exec.executionTime),
    memo: { fields: exec.memo },
    searchAttributes: { indexedFields: exec.searchAttributes },
    taskQueue: o.taskQueue,
    firstRunId: o.firstRunId,
  };
}

export function describeExecution(exec: Execution): Msg {
  const o = exec.options;
  return {
    executionConfig: {
      taskQueue: { name: o.taskQueue },
      workflowExecutionTimeout: o.executionTimeoutMs ? msToProto(o.executionTimeoutMs) : undefined,
      workflowRunTimeout: o.runTimeoutMs ? msToProto(o.runTimeoutMs) : undefined,
      defaultWorkflowTaskTimeout: msToProto(o.taskTimeoutMs),
    },
    workflowExecutionInfo: executionInfo(exec),
    pendingActivities: [...exec.activities.values()].map((a) => ({
      activityId: a.activityId,
      activityType: a.attrs.activityType,
      state: a.pendingState,
      heartbeatDetails: a.heartbeatDetails,
      lastHeartbeatTime: a.lastHeartbeatTime !== undefined ? msToProto(a.lastHeartbeatTime) : undefined,
      lastStartedTime: a.startedTime !== undefined ? msToProto(a.startedTime) : undefined,
      attempt: a.attempt,
      maximumAttempts: a.attrs.retryPolicy?.maximumAttempts ?? 0,
      scheduledTime: msToProto(a.currentAttemptScheduledTime),
      lastFailure: a.lastFailure,
      lastWorkerIdentity: a.startedIdentity,
      ...a.pauseDescription(),
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
  return { ...SYSTEM_ATTRIBUTES, ...Object.fromEntries(server.searchAttributeTypes) };
}

export function isSystemSearchAttribute(name: string): boolean {
  return SYSTEM_ATTRIBUTES[name] !== undefined;
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
  return {
    count: matches.length,
    groups: [...groups].map(([name, count]) => ({ groupValues: [keywordPayload(name)], count })),
  };
}

/** The rows matching a visibility query, in the given order. */
export function queryRows<R extends VisibilityRow>(server: ServerState, rows: R[], query: string): R[] {
  return rows.filter(parseQuery(server, query).predicate);
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

function parseQuery(server: ServerState, query: string): { predicate: Predicate; groupBy?: string } {
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
  const known = searchAttributeKeys(server);

  const literal = (field: string): Value => {
    const t = tokens[i++];
    if (!t) throw invalidArgument('invalid query: missing value');
    let v: Value;
    if (t.kind === 'string') v = t.text;
    else if (t.kind === 'number') v = Number(t.text);
    else if (t.kind === 'word' && /^(true|false)$/i.test(t.text)) v = t.text.toLowerCase() === 'true';
    else throw invalidArgument(`invalid query: unexpected "${t.text}"`);
    if (known[field] === IndexedValueType.DATETIME && typeof v === 'string') {
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) throw invalidArgument(`invalid query: "${v}" is not a valid datetime for ${field}`);
      return ms;
    }
    return v;
  };

  const comparison = (): Predicate => {
    const f = tokens[i++];
    if (f?.kind !== 'word') throw invalidArgument('invalid query: expected a search attribute name');
    const field = f.text;
    if (known[field] === undefined) throw invalidArgument(`invalid query: unknown search attribute ${field}`);
    const isDate = known[field] === IndexedValueType.DATETIME;
    const get = (e: VisibilityRow): Value => {
      const v = e.value(field);
      return isDate && typeof v === 'string' ? Date.parse(v) : v;
    };
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
      expectPunct('(');
      const values: Value[] = [literal(field)];
      while (peek()?.text === ',') {
        i++;
        values.push(literal(field));
      }
      expectPunct(')');
      return (e) => values.some((v) => matches(get(e), '=', v)) !== negated;
    }
    if (isWord('BETWEEN')) {
      i++;
      const low = literal(field);
      expectWord('AND');
      const high = literal(field);
      return (e) => (matches(get(e), '>=', low) && matches(get(e), '<=', high)) !== negated;
    }
    if (negated) throw invalidArgument('invalid query: NOT must precede IN or BETWEEN');
    if (isWord('STARTS_WITH')) {
      i++;
      const prefix = literal(field);
      return (e) => {
        const v = get(e);
        return typeof v === 'string' && typeof prefix === 'string' && v.startsWith(prefix);
      };
    }
    const op = tokens[i++];
    if (op?.kind !== 'op') throw invalidArgument(`invalid query: expected an operator after ${field}`);
    const value = literal(field);
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

const TYPE_BY_NAME: Record<string, number> = {
  Text: IndexedValueType.TEXT,
  Keyword: IndexedValueType.KEYWORD,
  Int: IndexedValueType.INT,
  Double: IndexedValueType.DOUBLE,
  Bool: IndexedValueType.BOOL,
  Datetime: IndexedValueType.DATETIME,
  KeywordList: IndexedValueType.KEYWORD_LIST,
};

export function indexedValueType(name: string): number | undefined {
  return TYPE_BY_NAME[name];
}

/**
 * Learns custom search attributes from the payloads that set them (the SDK tags each with its
 * type), so they can be queried without explicit registration.
 */
export function noteSearchAttributes(server: ServerState, fields: Record<string, Msg>): void {
  for (const [name, payload] of Object.entries(fields)) {
    if (server.searchAttributeTypes.has(name) || SYSTEM_ATTRIBUTES[name] !== undefined) continue;
    const typeName = payload.metadata?.type ? Buffer.from(payload.metadata.type).toString('utf8') : 'Keyword';
    server.addSearchAttribute(name, TYPE_BY_NAME[typeName] ?? IndexedValueType.KEYWORD);
  }
}
