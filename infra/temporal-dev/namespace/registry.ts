// Server-wide state (clock, task queues, namespaces) and per-namespace execution stores.
import { randomBytes, randomUUID } from 'node:crypto';
import { type OutstandingWork, VirtualClock } from '../common/clock.ts';
import type { ServerContext } from '../common/context.ts';
import { DynamicConfig } from '../common/dynamic-config.ts';
import { NamespaceState } from '../common/enums.ts';
import { namespaceNotFound, workflowNotFound } from '../common/errors.ts';
import { DEFAULT_LIMITS, LIMIT_KEYS, type Limits } from '../common/limits.ts';
import { Logger } from '../common/log.ts';
import type { Msg } from '../common/proto.ts';
import { TEST_SERVER_ATTRIBUTES } from '../common/search-attributes.ts';
import { msToProto } from '../common/time.ts';
import { Deployments, type DeploymentsHost, type DeploymentsState } from '../deployments/deployments.ts';
import { type ActivityExecutionsHost, StandaloneActivities, type StandaloneActivitiesState } from '../history/standalone-activities.ts';
import type { Execution } from '../history/workflow-execution.ts';
import { type StartsHost, WorkflowStarts } from '../history/workflow-starts.ts';
import { TaskQueues } from '../matching/task-queues.ts';
import { type ScheduleHost, Schedules, type SchedulesState } from '../scheduler/schedules.ts';
import type { VisibilityHost } from '../visibility/visibility.ts';

export interface ServerOptions {
  timeSkipping: boolean;
  /** --dynamic-config-value settings (default: Temporal's defaults). */
  dynamicConfig?: DynamicConfig;
  /** The server's log (default: warn and above on stderr). */
  log?: Logger;
  /** Size limits other than Temporal's defaults. */
  limits?: Partial<Limits>;
}

/** Receives every change to durable state (persistence.ts with --db-filename); unset in memory-only mode. */
export interface ChangeLog {
  executionChanged(exec: Execution): void;
  namespaceChanged(ns: Namespace): void;
  searchAttributeAdded(name: string, type: number): void;
  searchAttributeRemoved(name: string): void;
}

/** What a namespace row holds. */
export interface NamespaceSnapshot {
  id: string;
  description: string;
  retentionMs: number;
  /** Absent in a new namespace. */
  schedules?: SchedulesState;
  /** Worker deployments and their routing; absent in a new namespace (and in files written before versioning). */
  deployments?: DeploymentsState;
  /** Standalone activity executions; absent likewise. */
  activityExecutions?: StandaloneActivitiesState;
}

export class ServerState implements ServerContext {
  /** Goes into task tokens, so tokens issued before a restart are told apart. */
  readonly bootId = randomBytes(6).toString('base64url');
  readonly clock: VirtualClock;
  readonly workflowTasks: TaskQueues<Msg>;
  readonly activityTasks: TaskQueues<Msg>;
  readonly namespaces = new Map<string, Namespace>();
  /** Custom search attribute names and IndexedValueType (--search-attribute, the option, OperatorService). */
  readonly searchAttributeTypes = new Map<string, number>();
  readonly dynamicConfig: DynamicConfig;
  readonly log: Logger;
  readonly limits: Limits;
  changes: ChangeLog | undefined;

  constructor(options: ServerOptions) {
    this.dynamicConfig = options.dynamicConfig ?? new DynamicConfig();
    this.log = options.log ?? new Logger();
    const configured = Object.fromEntries(
      Object.entries(LIMIT_KEYS).map(([key, field]) => [field, this.dynamicConfig.get(key as keyof typeof LIMIT_KEYS)]),
    );
    this.limits = { ...DEFAULT_LIMITS, ...configured, ...options.limits };
    if (options.timeSkipping) for (const [name, type] of Object.entries(TEST_SERVER_ATTRIBUTES)) this.searchAttributeTypes.set(name, type);
    this.clock = new VirtualClock(options.timeSkipping);
    const pollTimeoutMs = this.dynamicConfig.get('matching.longPollExpirationInterval');
    this.workflowTasks = new TaskQueues(pollTimeoutMs);
    this.activityTasks = new TaskQueues(pollTimeoutMs);
    this.clock.setWorkProbe(() => this.outstandingWork());
  }

  namespace(name: string): Namespace {
    const ns = this.namespaces.get(name);
    if (!ns) throw namespaceNotFound(name);
    return ns;
  }

  register(name: string, description = '', retentionMs = 24 * 3600_000): Namespace {
    const ns = new Namespace(this, name, { id: randomUUID(), description, retentionMs });
    this.namespaces.set(name, ns);
    ns.touch();
    this.log.info('namespace registered', { namespace: name });
    return ns;
  }

  /** A namespace read back from the state file. */
  restoreNamespace(name: string, snapshot: NamespaceSnapshot): Namespace {
    const ns = new Namespace(this, name, snapshot);
    this.namespaces.set(name, ns);
    return ns;
  }

  addSearchAttribute(name: string, type: number): void {
    this.searchAttributeTypes.set(name, type);
    this.changes?.searchAttributeAdded(name, type);
  }

  removeSearchAttribute(name: string): void {
    if (this.searchAttributeTypes.delete(name)) this.changes?.searchAttributeRemoved(name);
  }

  private outstandingWork(): OutstandingWork {
    let activities = 0;
    for (const ns of this.namespaces.values()) {
      for (const exec of ns.open) {
        if (exec.hasOutstandingWorkflowTask) return { workflowTask: true, activities };
        activities += exec.runningActivityCount;
      }
      activities += ns.activityExecutions.runnableCount;
    }
    return { workflowTask: false, activities };
  }
}

/**
 * One namespace: its runs and its components (starts, schedules, deployments, standalone
 * activities), each of which sees it through the narrow interface it declares (`RunHost`,
 * `StartsHost`, `ScheduleHost`, ...) and never through the server: what they use of the server
 * (clock, log, limits, settings, task queues) the namespace hands on.
 */
export class Namespace implements StartsHost, ScheduleHost, DeploymentsHost, ActivityExecutionsHost, VisibilityHost {
  private readonly server: ServerState;
  readonly name: string;
  readonly id: string;
  readonly description: string;
  readonly retentionMs: number;
  /** Every run, in start order (visibility lists them newest first). */
  readonly runs: Execution[] = [];
  readonly open = new Set<Execution>();
  private readonly byRunId = new Map<string, Execution>();
  private readonly currentRun = new Map<string, Execution>();
  readonly starts: WorkflowStarts;
  readonly schedules: Schedules;
  readonly deployments: Deployments;
  readonly activityExecutions: StandaloneActivities;

  constructor(server: ServerState, name: string, snapshot: NamespaceSnapshot) {
    this.server = server;
    this.name = name;
    this.id = snapshot.id;
    this.description = snapshot.description;
    this.retentionMs = snapshot.retentionMs;
    this.starts = new WorkflowStarts(this);
    this.schedules = new Schedules(this);
    this.deployments = new Deployments(this);
    if (snapshot.deployments) this.deployments.importState(snapshot.deployments);
    this.activityExecutions = new StandaloneActivities(this);
    // Their attempts are queued again at once (they depend on no run).
    if (snapshot.activityExecutions) this.activityExecutions.importState(snapshot.activityExecutions);
    // Re-armed by the state file's loader once the runs they watch are back.
    if (snapshot.schedules) this.schedules.importState(snapshot.schedules);
  }

  get bootId(): string {
    return this.server.bootId;
  }
  get clock(): VirtualClock {
    return this.server.clock;
  }
  get log(): Logger {
    return this.server.log;
  }
  get limits(): Limits {
    return this.server.limits;
  }
  get dynamicConfig(): DynamicConfig {
    return this.server.dynamicConfig;
  }
  get searchAttributeTypes(): ReadonlyMap<string, number> {
    return this.server.searchAttributeTypes;
  }
  get workflowTasks(): TaskQueues<Msg> {
    return this.server.workflowTasks;
  }
  get activityTasks(): TaskQueues<Msg> {
    return this.server.activityTasks;
  }

  /** Another namespace of the server (children, signals and cancels may cross namespaces). */
  lookup(name: string): Namespace | undefined {
    return this.server.namespaces.get(name);
  }

  /** Marks a run's state as changed, to be committed before the current request is answered. */
  runChanged(exec: Execution): void {
    this.server.changes?.executionChanged(exec);
  }

  /** Marks the namespace's own state as changed, to be committed before the current request is answered. */
  touch(): void {
    this.server.changes?.namespaceChanged(this);
  }

  snapshot(): NamespaceSnapshot {
    return {
      id: this.id,
      description: this.description,
      retentionMs: this.retentionMs,
      schedules: this.schedules.exportState(),
      deployments: this.deployments.exportState(),
      activityExecutions: this.activityExecutions.exportState(),
    };
  }

  /** Task queue names are namespace-scoped. */
  queueKey(taskQueue: string): string {
    return `${this.name}\u0000${taskQueue}`;
  }

  info(): Msg {
    return {
      namespaceInfo: {
        name: this.name,
        id: this.id,
        state: NamespaceState.REGISTERED,
        description: this.description,
        capabilities: {
          eagerWorkflowStart: true,
          syncUpdate: this.server.dynamicConfig.get('frontend.enableUpdateWorkflowExecution'),
          asyncUpdate: this.server.dynamicConfig.get('frontend.enableUpdateWorkflowExecutionAsyncAccepted'),
          standaloneActivities: true,
          standaloneActivityStartDelay: true,
          standaloneActivityOperatorCommands: true,
        },
        // Workers read these and fail oversized completions themselves (PAYLOADS_TOO_LARGE).
        limits: { blobSizeLimitError: this.server.limits.blobSizeError, memoSizeLimitError: this.server.limits.memoSizeError },
        supportsSchedules: this.server.dynamicConfig.get('frontend.enableSchedules'),
      },
      config: { workflowExecutionRetentionTtl: msToProto(this.retentionMs) },
      isGlobalNamespace: false,
    };
  }

  add(exec: Execution): void {
    this.runs.push(exec);
    this.byRunId.set(exec.runId, exec);
    this.currentRun.set(exec.workflowId, exec);
    // Only runs read back from the state file can be closed already.
    if (exec.isOpen) this.open.add(exec);
  }

  current(workflowId: string): Execution | undefined {
    return this.currentRun.get(workflowId);
  }

  /** Finds a run by id, or the current run when runId is empty. */
  find(workflowId: string, runId?: string | null): Execution | undefined {
    if (!runId) return this.currentRun.get(workflowId);
    const exec = this.byRunId.get(runId);
    return exec?.workflowId === workflowId ? exec : undefined;
  }

  get(execution: Msg | undefined): Execution {
    const workflowId: string | undefined = execution?.workflowId;
    if (!workflowId) throw workflowNotFound('');
    const exec = this.find(workflowId, execution?.runId);
    if (!exec) throw workflowNotFound(workflowId, execution?.runId);
    return exec;
  }

  onClosed(exec: Execution): void {
    this.open.delete(exec);
    this.starts.onClosed(exec);
    this.schedules.onWorkflowClosed(exec);
  }
}
