// Task tokens are opaque to workers; ours are JSON naming the execution and the task instance.
import { invalidArgument } from './errors.ts';

export interface TaskToken {
  /** The server process that issued it: tokens from before a restart are refused (their tasks were requeued). */
  boot: string;
  namespace: string;
  workflowId: string;
  runId: string;
  /** 'wt' workflow task, 'at' activity task, 'qt' legacy query task, 'sa' standalone activity task (workflowId: its activity id). */
  kind: 'wt' | 'at' | 'qt' | 'sa';
  /** Workflow task: its scheduled event id; activity: scheduled event id; query: query id. */
  id: number;
  /** Activity attempt or workflow task instance, to reject responses for superseded attempts. */
  attempt: number;
}

export function encodeToken(token: TaskToken): Buffer {
  return Buffer.from(JSON.stringify(token));
}

/**
 * Temporal's frontend answers for a missing or unreadable token; which kind it is, each RPC checks
 * itself. A token in Temporal's own format (the protobuf `temporal.server.api.token.v1.Task` a real
 * server issues, e.g. kept by a client from another server) is read too: it names no task here, so
 * the RPC answers NOT_FOUND as Temporal does for a task that is gone; its namespace id is named by
 * `namespaces` (an unknown id stays as the namespace, which is then not found).
 */
export function decodeToken(bytes: Uint8Array | undefined, namespaces: Iterable<{ id: string; name: string }> = []): TaskToken {
  if (!bytes || bytes.length === 0) throw invalidArgument('Task token not set on request.');
  let token: TaskToken | undefined;
  try {
    token = JSON.parse(Buffer.from(bytes).toString('utf8')) as TaskToken;
  } catch {
    token = temporalToken(Buffer.from(bytes), namespaces);
  }
  if (typeof token !== 'object' || token === null || typeof token.namespace !== 'string' || typeof token.kind !== 'string') {
    throw invalidArgument('Error deserializing task token.');
  }
  return token;
}

/** Temporal's activity task token: fields 1 namespace id, 2 workflow id, 3 run id, 4 scheduled event id, 5 attempt (others skipped). */
function temporalToken(buf: Buffer, namespaces: Iterable<{ id: string; name: string }>): TaskToken | undefined {
  const strings = new Map<number, string>();
  const numbers = new Map<number, number>();
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; pos < buf.length && shift < 64; shift += 7) {
      const byte = buf[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new Error('truncated varint');
  };
  try {
    while (pos < buf.length) {
      const key = varint();
      const field = Math.floor(key / 8);
      const wire = key % 8;
      if (wire === 0) numbers.set(field, varint());
      else if (wire === 2) {
        const length = varint();
        if (pos + length > buf.length) return undefined;
        strings.set(field, buf.toString('utf8', pos, pos + length));
        pos += length;
      } else if (wire === 1) pos += 8;
      else if (wire === 5) pos += 4;
      else return undefined;
    }
  } catch {
    return undefined;
  }
  const namespaceId = strings.get(1);
  if (!namespaceId || !strings.get(2)) return undefined;
  const namespace = [...namespaces].find((ns) => ns.id === namespaceId)?.name ?? namespaceId;
  return {
    boot: '',
    namespace,
    workflowId: strings.get(2)!,
    runId: strings.get(3) ?? '',
    kind: 'at',
    id: numbers.get(4) ?? 0,
    attempt: numbers.get(5) ?? 0,
  };
}
