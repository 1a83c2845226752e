import type { Logger } from 'pino';
import type { ModelProvider } from './app-workflows/index.ts';
import type { AppScheduleObserver, BlobStore } from './apps/index.ts';
import type { ConnectivitySettings } from './connectivity/index.ts';
import type { Db } from './db/index.ts';
import type { OpenRecorder } from './hosting/index.ts';
import type { KeyUseRecorder, PrincipalCache } from './keys/index.ts';
import type { Mailer } from './mail/index.ts';
import type { UploadHashes } from './media/index.ts';
import type { ChangeHub, SqlGate } from './ontology/index.ts';
import type { CloudProvider, CompanyRootPolicy, LiveRunObserver } from './provisioning/index.ts';
import type { ScryptParams } from './security/index.ts';
import type { PayloadDecoder } from './system/index.ts';
import type { CameraService } from './vision/index.ts';

/** The spec's {base_url}, {production_base} and {developer_base}. */
export interface PublicAddresses {
  baseUrl: string;
  productionBase: string;
  developerBase: string;
}

/** A Temporal Web UI and the namespace the service's workflows run in. */
export interface TemporalUi {
  url: string;
  namespace: string;
}

/**
 * Where use cases read the time. Production uses the system clock; tests pass one they set, so
 * rate-limit windows and the login lockout are checked at exact instants and never wait.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Where ontology SQL connects (as its own roles), how long one statement may run, and how many run at once. */
export interface OntologySqlSettings {
  /** The service's connection string; a query replaces its user and password with its SQL role's. */
  databaseUrl: string;
  statementTimeoutMs: number;
  /** The nice value of a query's backend where it runs on this machine (backend-priority.ts); 0 leaves it alone. */
  backendNice: number;
  /** The process's concurrency budget of ontology SQL (global and per company). */
  gate: SqlGate;
}

/** What use cases may reach beyond their `db | trx` argument; built once by the composition root. */
export interface DomainDeps {
  db: Db;
  logger: Logger;
  /** Known once the HTTP server listens (derived from its address unless configured). */
  addresses(): PublicAddresses;
  /** scrypt cost for new password hashes: production parameters unless a test lowers them. */
  passwordHashing: ScryptParams;
  /** The time for rules measured in wall-clock windows (rate limits, lockout). */
  clock: Clock;
  /** Version file bytes by content hash (PostgreSQL or S3, behind an in-process cache). */
  blobs: BlobStore;
  /** Bound of the in-process cache of hosted files' compressed copies, in bytes; absent: 64 MiB. */
  compressedCacheBytes?: number;
  /**
   * The running item hashes of upload sessions whose parts this process received in order, shared
   * with its worker (role all) so their assembly reads no part; absent: every assembly reads its parts.
   */
  uploadHashes?: UploadHashes;
  /** The principals behind keys, admitted ticket cookies and online versions, emptied in every process on a change (NOTIFY). */
  principals: PrincipalCache;
  /** Keys' last_used_at, written in batches off the request path. */
  keyUses: KeyUseRecorder;
  /** The app log's usage/open records, written in batches off the request path. */
  opens: OpenRecorder;
  /** The model provider of evolve's suggestions (as of workflow `model` steps); the deterministic local one when unset. */
  models?: ModelProvider;
  /** Email (workflow notify steps, the mail test): SMTP, or `configured: false` when none is set. */
  mailer: Mailer;
  /** Where company initialization's rootPath may lie (SVC_COMPANY_ROOT) and where never. */
  companyRoot: CompanyRootPolicy;
  /**
   * The Temporal Web UI where runs are shown (their addresses in the run list): SVC_TEMPORAL_UI_URL,
   * else the embedded server's where this process runs it; unset when neither is known.
   */
  temporalUi?: TemporalUi;
  /** The cloud of company instances (SVC_CLOUD): provisioning-status compares the recorded instance with it. */
  cloud?: CloudProvider;
  /** Apps' Temporal Schedules as Temporal holds them (the usage view); set where the process is connected to Temporal. */
  appSchedules?: AppScheduleObserver;
  /** svc's Temporal payload codec (the codec endpoint); unset where this process has no payload key. */
  payloadDecoder?: PayloadDecoder;
  /** Provisioning runs as Temporal sees them now; set where the process is connected to Temporal. */
  liveRuns?: LiveRunObserver;
  /** The process's one reader of committed ontology changes (subscriptions); set where HTTP is served. */
  ontologyChanges?: ChangeHub;
  /** Set where the process serves HTTP. */
  ontologySql?: OntologySqlSettings;
  /** Cameras: how they are reached, this process's live feeds, the sealer of their credentials; set where the process serves HTTP. */
  cameras?: CameraService;
  /** Data connections: the key that seals their secrets, where sources may be. */
  connectivity: ConnectivitySettings;
}
