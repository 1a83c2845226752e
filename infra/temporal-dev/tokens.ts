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

/** Temporal's frontend answers for a missing or unreadable token; which kind it is, each RPC checks itself. */
export function decodeToken(bytes: Uint8Array | undefined): TaskToken {
  if (!bytes || bytes.length === 0) throw invalidArgument('Task token not set on request.');
  let token: TaskToken;
  try {
    token = JSON.parse(Buffer.from(bytes).toString('utf8')) as TaskToken;
  } catch {
    throw invalidArgument('Error deserializing task token.');
  }
  if (typeof token !== 'object' || token === null || typeof token.namespace !== 'string' || typeof token.kind !== 'string') {
    throw invalidArgument('Error deserializing task token.');
  }
  return token;
}
