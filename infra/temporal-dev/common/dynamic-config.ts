// Temporal's dynamic config, for the keys this server honours (with Temporal's defaults). Set by
// `--dynamic-config-value KEY=JSON` (or the `dynamicConfig` option) and read by the modules through
// `ServerState.dynamicConfig`. As in Temporal, any key is accepted: unknown ones are kept and
// listed at debug level, and a value of the wrong type is logged and its default used.
import { UpdateStage } from './enums.ts';
import { permissionDenied } from './errors.ts';
import { DEFAULT_LIMITS, LIMIT_KEYS } from './limits.ts';
import type { Logger } from './log.ts';
import type { Msg } from './proto.ts';

type Parser<T> = (value: unknown) => T | undefined;

const bool: Parser<boolean> = (v) => (typeof v === 'boolean' ? v : undefined);
const bytes: Parser<number> = (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const ratio: Parser<number> = (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined);
/** The size limits (limits.ts) under their Temporal keys. */
const LIMITS = Object.fromEntries(
  Object.entries(LIMIT_KEYS).map(([key, field]) => [key, { default: DEFAULT_LIMITS[field], parse: bytes }]),
) as Record<keyof typeof LIMIT_KEYS, { default: number; parse: Parser<number> }>;
/** Milliseconds from a Go duration string ("30s", "1m30s", "2d"; bare numbers are seconds) or a number of seconds. */
const duration: Parser<number> = (v) => {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v * 1000 : undefined;
  if (typeof v !== 'string') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  let ms = 0;
  let rest = v;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/.exec(rest);
    if (!m) return undefined;
    ms += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return v ? ms : undefined;
};

const KEYS = {
  /** UpdateWorkflowExecution and PollWorkflowExecutionUpdate; off: PERMISSION_DENIED. */
  'frontend.enableUpdateWorkflowExecution': { default: true, parse: bool },
  /** Waiting only for the Accepted stage of an update; off: PERMISSION_DENIED. */
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': { default: true, parse: bool },
  /** The schedule RPCs; off: PERMISSION_DENIED. */
  'frontend.enableSchedules': { default: true, parse: bool },
  /** A task token may only be used in its own namespace. */
  'frontend.enableTokenNamespaceEnforcement': { default: true, parse: bool },
  /** How long a task-queue poll waits before an empty answer (ms). */
  'matching.longPollExpirationInterval': { default: 60_000, parse: duration },
  /** How long a history long poll (waitNewEvent) waits before an empty page (ms). */
  'history.longPollExpirationInterval': { default: 20_000, parse: duration },
  /** Updates admitted or accepted and not yet completed, per run (0: no limit); over it RESOURCE_EXHAUSTED. */
  'history.maxInFlightUpdates': { default: 10, parse: bytes },
  /** Bytes of the requests of a run's updates in flight (0: no limit); over it RESOURCE_EXHAUSTED. */
  'history.maxInFlightUpdatePayloads': { default: 20 * 1024 * 1024, parse: bytes },
  /** Updates a run may receive in all (0: no limit); over it FAILED_PRECONDITION. */
  'history.maxTotalUpdates': { default: 2000, parse: bytes },
  /** The share of `history.maxTotalUpdates` from which workflow tasks suggest continue-as-new. */
  'history.maxTotalUpdates.suggestContinueAsNewThreshold': { default: 0.9, parse: ratio },
  /** The longest workflow id, type, task queue, request id and update id a request may carry. */
  'limit.maxIDLength': { default: 1000, parse: bytes },
  ...LIMITS,
} satisfies Record<string, { default: unknown; parse: Parser<unknown> }>;

export type DynamicConfigKey = keyof typeof KEYS;
type ValueOf<K extends DynamicConfigKey> = (typeof KEYS)[K]['default'];

export class DynamicConfig {
  private readonly values = new Map<string, unknown>();
  /** Keys this server does not know, with their values as given. */
  readonly unknown: Record<string, unknown> = {};

  constructor(given: Record<string, unknown> = {}, log?: Logger) {
    for (const [key, value] of Object.entries(given)) {
      const spec = (KEYS as Record<string, { parse: Parser<unknown> }>)[key];
      if (!spec) {
        this.unknown[key] = value;
        continue;
      }
      const parsed = spec.parse(value);
      if (parsed === undefined) log?.warn('dynamic config value of the wrong type, using the default', { key, value });
      else {
        this.values.set(key, parsed);
        log?.info('dynamic config value set', { key, value });
      }
    }
    if (Object.keys(this.unknown).length > 0) {
      log?.debug('dynamic config keys this server does not use', { keys: Object.keys(this.unknown).join(',') });
    }
  }

  get<K extends DynamicConfigKey>(key: K): ValueOf<K> {
    return (this.values.has(key) ? this.values.get(key) : KEYS[key].default) as ValueOf<K>;
  }
}

const SCHEDULE_CALLS = new Set([
  'CreateSchedule',
  'DescribeSchedule',
  'UpdateSchedule',
  'PatchSchedule',
  'ListScheduleMatchingTimes',
  'DeleteSchedule',
]);

/** Temporal's frontend refusals for the features that dynamic config turned off. */
export function checkEnabled(config: DynamicConfig, method: string, req: Msg): void {
  if (SCHEDULE_CALLS.has(method) && !config.get('frontend.enableSchedules')) {
    throw permissionDenied('Schedules are disabled on this namespace.');
  }
  if (method !== 'UpdateWorkflowExecution' && method !== 'PollWorkflowExecutionUpdate') return;
  if (!config.get('frontend.enableUpdateWorkflowExecution')) {
    throw permissionDenied('UpdateWorkflowExecution operation is disabled on this namespace.');
  }
  if (
    method === 'UpdateWorkflowExecution' &&
    req.waitPolicy?.lifecycleStage === UpdateStage.ACCEPTED &&
    !config.get('frontend.enableUpdateWorkflowExecutionAsyncAccepted')
  ) {
    throw permissionDenied('UpdateWorkflowExecution issued asynchronously and waiting on update accepted is disabled on this namespace.');
  }
}
