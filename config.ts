import path from 'node:path';
import { z } from 'zod';
import type { PublicAddresses } from './domain/deps.ts';
import { type CompanyRootPolicy, isInside, SYSTEM_DIRECTORIES } from './domain/provisioning/index.ts';
import { parsePayloadKeys } from './infra/temporal-codec/payload-codec.ts';

// Every environment variable the service reads, validated once at start.
// Each one's description is its documentation: `npm run docs` prints them in
// docs/operators/configuration.md (a test keeps that file in step).

const port = z.coerce.number().int().min(0).max(65535);
const httpUrl = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
// An empty variable (FOO=) counts as unset, as shells and compose files produce them.
const unsetIfBlank = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);

// Bucket names as S3 accepts them: 3-63 lowercase letters, digits, dots and hyphens.
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const blobStore = z.string().transform((v, ctx) => {
  if (v === 'postgres') return { kind: 'postgres' as const };
  const m = /^s3:\/\/([^/]*)\/?(.*)$/.exec(v);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'must be postgres or s3://bucket/prefix' });
    return z.NEVER;
  }
  const [, bucket = '', rawPrefix = ''] = m;
  if (!S3_BUCKET.test(bucket)) {
    ctx.addIssue({ code: 'custom', message: `"${bucket}" is not an S3 bucket name (3-63 of a-z, 0-9, . and -)` });
    return z.NEVER;
  }
  const prefix = rawPrefix.replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    ctx.addIssue({ code: 'custom', message: `prefix "${rawPrefix}" has an empty, . or .. segment` });
    return z.NEVER;
  }
  return { kind: 's3' as const, bucket, prefix };
});

/** Comma-separated `<id>:<base64 of 32 bytes>` AES-256-GCM keys, the current one first (payload and secret keys). */
const aesKeyList = unsetIfBlank(
  z
    .string()
    .transform((v, ctx) => {
      const keys = parsePayloadKeys(v);
      if (typeof keys === 'string') ctx.addIssue({ code: 'custom', message: keys });
      return typeof keys === 'string' ? z.NEVER : keys;
    })
    .optional(),
);

// Exported for the generated configuration table (infra/docs): each variable's description is its
// documentation, and `shown` says what the table prints as the default when the value is derived.
const shown = (text: string) => ({ shownDefault: text });

export const EnvSchema = z
  .object({
    PORT: port.default(8080).describe('HTTP port (`0` picks a free one).'),
    HOST: z.string().min(1).default('127.0.0.1').describe('Address to listen on.'),
    DATABASE_URL: unsetIfBlank(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
        .optional(),
    ).describe('`postgres://…` of an external PostgreSQL. Unset: an embedded PostgreSQL is started.'),
    SVC_DATA_DIR: z
      .string()
      .min(1)
      .default('./.data')
      .describe(
        'Persistent data of the embedded PostgreSQL (`postgres/` and its generated `postgres.password`), of the embedded Temporal server (`temporal/temporal.sqlite`), the generated Temporal payload key (`temporal/payload.key`), the workflow bundle cache (`cache/`), the local cloud (`local-cloud/`) and the admin socket `npm run backup` asks the running service through (`run/admin.sock`).',
      ),
    SVC_COMPANY_ROOT: unsetIfBlank(z.string().optional())
      .describe(
        "The folder every company initialization `rootPath` must lie under once symlinks are resolved (the real path of its deepest existing part); anything else is refused with 400 `invalid_payload` (problem `path_not_allowed` at `rootPath`) before a run is asked for, and each file step checks again. Whatever it is set to (even `/`), `/proc`, `/sys`, `/dev`, the service's folders of `SVC_DATA_DIR` (`postgres/`, `temporal/`, `cache/`, `local-cloud/`, `run/`; all of `SVC_DATA_DIR` when the root contains it) and PostgreSQL's own data directory (when the service's database user may read `data_directory`) are refused. Must not itself lie in those.",
      )
      .meta(shown('`SVC_DATA_DIR/companies`')),
    SVC_EMBEDDED_PG_PORT: unsetIfBlank(port.optional())
      .describe('Fixed loopback port for the embedded PostgreSQL.')
      .meta(shown('a free port')),
    SVC_BASE_URL: unsetIfBlank(httpUrl.optional())
      .describe("The spec's `{base_url}`: the public address of the service.")
      .meta(shown('`http://HOST:PORT`')),
    SVC_PRODUCTION_BASE: unsetIfBlank(httpUrl.optional())
      .describe('`{production_base}`: base of the production-channel page tree (may be another host: see hosting).')
      .meta(shown('`{base_url}/p`')),
    SVC_DEVELOPER_BASE: unsetIfBlank(httpUrl.optional())
      .describe('`{developer_base}`: base of the test-channel page tree (may be another host).')
      .meta(shown('`{base_url}/d`')),
    SVC_BODY_BUFFER_BYTES: z.coerce
      .number()
      .int()
      .min(64 * 1024 * 1024)
      .default(512 * 1024 * 1024)
      .describe(
        'Request bodies this process holds in memory at once (uploads are read whole: media items, upload parts, attachments); one company at most half. Past it: 429 `rate_limited` with `Retry-After`.',
      ),
    SVC_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(8 * 1024 * 1024)
      .describe(
        'Largest version-bundle upload; fits a 3 MB bundle sent as base64 JSON. Other routes read at most 64 KiB, and 4 KiB when they need no credential.',
      )
      .meta(shown('`8388608` (8 MiB)')),
    SVC_LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino level: fatal, error, warn, info, debug, trace, silent.'),
    SVC_LOG_FORMAT: unsetIfBlank(z.enum(['pretty', 'json']).optional())
      .describe('`pretty`: readable lines; `json`: one JSON object per line (for log collectors).')
      .meta(shown('`pretty` on a terminal, else `json`')),
    SVC_SHUTDOWN_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe('On SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut.'),
    SVC_SHUTDOWN_DELAY_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(0)
      .describe(
        "On SIGTERM/SIGINT, how long the process keeps serving, readiness failing (`shutdown`), before it stops listening: a load balancer probing readiness stops sending to it meanwhile. Set it above the balancer's probe interval times its failure threshold when nothing else removes the process first (Kubernetes does, with its preStop pause).",
      ),
    TEMPORAL_ADDRESS: unsetIfBlank(
      z
        .string()
        .regex(/^[^\s:]+:\d+$/, 'must be host:port')
        .optional(),
    ).describe(
      '`host:port` of a Temporal cluster. Unset: the embedded server in the process (local use only), its state in `SVC_DATA_DIR/temporal/temporal.sqlite`.',
    ),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('Temporal namespace.'),
    SVC_TEMPORAL_UI_PORT: z
      .union([z.literal('off'), port])
      .default(8233)
      .describe(
        "With `TEMPORAL_ADDRESS` unset: loopback port of the embedded server's Temporal Web UI (printed at start as `Temporal UI:`); `0` picks a free port, `off` serves none. A fixed default because the embedded server's gRPC port is random (Temporal's own dev server uses its gRPC port + 1000, i.e. 8233 for 7233).",
      ),
    SVC_TEMPORAL_UI_URL: unsetIfBlank(httpUrl.optional()).describe(
      "The Temporal Web UI that shows `TEMPORAL_ADDRESS`'s workflows (e.g. `https://temporal.example.com`): the run list (and `svc runs`) links each run there. Unset: the embedded server's UI where this process runs it, else no link.",
    ),
    SVC_TEMPORAL_PAYLOAD_KEYS: aesKeyList.describe(
      'AES-256-GCM keys that seal every Temporal payload svc writes (workflow inputs, results, signals, schedule actions), as comma-separated `<id>:<base64 of 32 bytes>` (`openssl rand -base64 32`). The first encrypts; all decrypt (keep earlier keys after the current one until the runs they sealed are gone). Every API and worker process needs the same list. Unset: a key generated on first start in `SVC_DATA_DIR/temporal/payload.key` (mode 0600), enough for one process (`npm start`).',
    ),
    SVC_SECRET_KEYS: aesKeyList.describe(
      'AES-256-GCM keys that seal every secret the service keeps to use again (camera credentials; data connections’ PostgreSQL connection strings, S3 secret keys and Authorization values), each bound to its record, in the format of `SVC_TEMPORAL_PAYLOAD_KEYS` (`openssl rand -base64 32`): the first seals, all open (keep earlier keys after the current one until every secret they sealed is rewritten: update the camera’s credentials, recreate the connection). Every API and worker process needs the same list. Unset: a key generated on first start in `SVC_DATA_DIR/secrets/secret.key` (mode 0600), enough for one process (`npm start`).',
    ),
    SVC_CAMERA_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe(
        'How long the service waits for a camera to connect, answer, and send each next frame before answering 504 camera_timeout (a stalled live feed ends).',
      ),
    SVC_CAMERA_LOOPBACK: z
      .enum(['deny', 'allow'])
      .default('deny')
      .describe(
        "`allow`: a camera address may be on this host (127.0.0.0/8, ::1), e.g. a test camera or one served by the same machine. Denied by default: loopback reaches the service's own ports. Private networks are always allowed (cameras live there); link-local (cloud metadata), multicast and unspecified addresses never.",
      ),
    SVC_CONNECTIVITY_PRIVATE_NETWORKS: z
      .enum(['refuse', 'allow'])
      .default('refuse')
      .describe(
        'Whether data connections may reach loopback, private (RFC 1918, unique-local), link-local (cloud metadata) and other non-public addresses, checked after DNS resolution on every connection; `allow` also admits plain `http://` endpoints. `refuse` (the default) keeps a company’s connection from probing the service’s own network.',
      ),
    SVC_TEMPORAL_CACHED_WORKFLOWS: z.coerce
      .number()
      .int()
      .min(2)
      .max(100_000)
      .default(200)
      .describe(
        "Workflow runs a worker keeps in memory between their tasks (Temporal's `maxCachedWorkflows`), in its workflow thread's heap; a run not kept replays its history at its next task, which costs CPU, not correctness. Part of the memory budget ([install](install.md#memory)): the SDK's own default grows with the heap limit (about 2,300 runs on a 4 GB heap). Keep it above the runs a worker has going at once (100 workflow tasks at a time; a lower value also lowers that).",
      ),
    SVC_TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((s) =>
        s
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.union([z.ipv4(), z.ipv6()])))
      .describe('Comma-separated IPs of reverse proxies whose `X-Forwarded-For` is believed (for per-IP rate limits).')
      .meta(shown('none')),
    SVC_OPERATOR_LOGIN: unsetIfBlank(z.string().min(1).max(254).optional()).describe(
      'Set it with `SVC_OPERATOR_PASSWORD` and a fresh instance creates this platform-staff account at start, with a developer and admin license in the platform company `cell-platform`. An existing account is never changed.',
    ),
    SVC_OPERATOR_PASSWORD: unsetIfBlank(z.string().min(12, 'must be at least 12 characters').max(256).optional()).describe(
      'The password of that operator account (at least 12 characters); set it with `SVC_OPERATOR_LOGIN`.',
    ),
    SVC_OPERATOR_EMAIL: unsetIfBlank(z.email().optional())
      .describe('Email of that operator account.')
      .meta(shown('the login if it is an email')),
    SVC_BLOB_STORE: unsetIfBlank(blobStore.default({ kind: 'postgres' }))
      .describe(
        "Where version files live, each stored once under its SHA-256. `postgres`: the `blobs` table of the service's database. `s3://bucket/prefix`: objects `<prefix>/sha256/<hex>` in that bucket (the prefix may be empty), for several API processes without growing the database; region and credentials come from the standard AWS chain (`AWS_REGION`, `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, an instance or task role). Switching does not move existing files.",
      )
      .meta(shown('`postgres`')),
    SVC_BLOB_STORE_ENDPOINT: unsetIfBlank(httpUrl.optional())
      .describe(
        'With an `s3://` store only: `http(s)://host:port` of an S3-compatible server (MinIO, Ceph, …), addressed path-style. The SDK still needs a region: set `AWS_REGION` (most such servers accept any, e.g. `us-east-1`).',
      )
      .meta(shown('AWS')),
    SVC_BLOB_SWEEP_GRACE_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(24)
      .describe(
        'The blob sweep (the `blob-sweep` Temporal Schedule, every 6 hours) deletes stored files no app version, media item, upload part, transformation, attachment or world asset names any more, once nobody stored or re-used them for this many hours. Longer than any write takes to name what it stored (an upload stores its bytes, then records them); raise it to keep deleted content recoverable from the store longer.',
      ),
    SVC_RUN_START_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(10_000)
      .describe(
        'How long a control-plane call waits for the outbox relay to report the run it started or joined; after that it answers 202 with `runId: null` and the run starts once a worker is up. Also how long a workflow `execute` waits for its run to finish before answering 202 with the run still going.',
      ),
    SVC_CLOUD_PROVIDER: z
      .enum(['local', 'aws'])
      .default('local')
      .describe(
        "Where company initialization makes server instances. `local`: a simulated instance per company, a JSON file in `SVC_DATA_DIR/local-cloud/` (the whole flow on one machine, no account). `aws`: EC2 through the AWS SDK v3, credentials from the standard chain of the worker's machine under the request's `cloud.profile`, in its `cloud.region`.",
      ),
    SVC_LOCAL_CLOUD_DIR: unsetIfBlank(z.string().optional())
      .describe(
        'With `local`: the folder of the simulated instances. Workers of one cluster on one machine share it, as they would share one cloud account.',
      )
      .meta(shown('`SVC_DATA_DIR/local-cloud`')),
    SVC_AWS_IMAGE_ID: unsetIfBlank(
      z
        .string()
        .regex(/^ami-[0-9a-f]{8,17}$/, 'must be an AMI id (ami-…)')
        .optional(),
    ).describe('With `aws` (required there): the AMI new instances start from.'),
    SVC_AWS_INSTANCE_TYPE: z
      .string()
      .regex(/^[a-z0-9-]+\.[a-z0-9]+$/, 'must be an instance type such as t3.small')
      .default('t3.small')
      .describe('With `aws`: the instance type of new instances.'),
    SVC_SMTP_URL: unsetIfBlank(z.url({ protocol: /^smtps?$/ }).optional()).describe(
      'Email of workflow notify steps, the mail test and member invitations: `smtp://user:pass@host:587` or `smtps://…:465` (nodemailer; connections pooled unless the URL says `?pool=false`). Unset: messages are recorded (status `recorded`) and not sent, and the usage view says `emailConfigured: false`; invitations then cannot reach anyone.',
    ),
    SVC_MAIL_FROM: z.email().default('svc@localhost').describe('The From address of those emails.'),
    SVC_SQL_STATEMENT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(20_000)
      .describe(
        'How long one ontology SQL statement may run before it is cancelled (`timeout`); also its lock and idle-in-transaction timeouts, and how long a query waits for a slot.',
      ),
    SVC_SQL_MAX_CONNECTIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(4)
      .describe(
        "Ontology SQL queries one process runs at once, each on a connection of its own (never one of the service's pool); as many more may wait, then 429 `rate_limited`. Each API process has its own budget: count them against PostgreSQL's `max_connections`.",
      ),
    SVC_SQL_COMPANY_CONNECTIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(2)
      .describe('Of those, at most this many for one company (as many more of it may wait), so one company never takes every slot.'),
    SVC_SQL_BACKEND_NICE: z.coerce
      .number()
      .int()
      .min(0)
      .max(19)
      .default(19)
      .describe(
        "The nice value of ontology SQL backends, and of their CPU group under Linux autogroup scheduling, when PostgreSQL runs on this machine (proven per connection), so that a company's heavy query yields the CPU to the service and to other companies' requests; `0` leaves them alone. No effect on a PostgreSQL elsewhere.",
      ),
    SVC_BLOB_CACHE_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024)
      .describe(
        'Per-process cache of file bytes, least recently used evicted first; `0` caches nothing. Files never change under their hash, so the cache is never stale; bytes are checked against their hash as they enter it.',
      )
      .meta(shown('`67108864` (64 MiB)')),
    SVC_HOSTING_COMPRESSED_CACHE_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024)
      .describe(
        "Per-process cache of hosted files' compressed copies (brotli and gzip, made at first request by content hash, so identical files of every app share one), least recently used evicted first. Part of the memory budget ([install](install.md#memory)); `0` keeps none, and every compressible page request then compresses its file again (brotli at its highest quality: costly).",
      )
      .meta(shown('`67108864` (64 MiB)')),
  })
  .refine((e) => (e.SVC_OPERATOR_LOGIN === undefined) === (e.SVC_OPERATOR_PASSWORD === undefined), {
    path: ['SVC_OPERATOR_PASSWORD'],
    message: 'set SVC_OPERATOR_LOGIN and SVC_OPERATOR_PASSWORD together',
  })
  .refine((e) => e.SVC_CLOUD_PROVIDER !== 'aws' || e.SVC_AWS_IMAGE_ID !== undefined, {
    path: ['SVC_AWS_IMAGE_ID'],
    message: 'required with SVC_CLOUD_PROVIDER=aws: the image new instances start from',
  })
  .refine((e) => e.SVC_BLOB_STORE_ENDPOINT === undefined || e.SVC_BLOB_STORE.kind === 's3', {
    path: ['SVC_BLOB_STORE_ENDPOINT'],
    message: 'applies only with SVC_BLOB_STORE=s3://bucket/prefix',
  })
  .superRefine((e, ctx) => {
    const problem = companyRootProblem(path.resolve(e.SVC_DATA_DIR), companyRootOf(e));
    if (problem) ctx.addIssue({ code: 'custom', path: ['SVC_COMPANY_ROOT'], message: problem });
  });

/** The folders of SVC_DATA_DIR the service itself keeps (PostgreSQL, Temporal, bundle cache, local cloud). */
function serviceDataFolders(dataDir: string): string[] {
  return ['postgres', 'temporal', 'cache', 'local-cloud', 'run'].map((name) => path.join(dataDir, name));
}

function companyRootOf(e: { SVC_DATA_DIR: string; SVC_COMPANY_ROOT?: string | undefined }): string {
  return path.resolve(e.SVC_COMPANY_ROOT ?? path.join(e.SVC_DATA_DIR, 'companies'));
}

/** Why SVC_COMPANY_ROOT cannot be used, or undefined. */
function companyRootProblem(dataDir: string, root: string): string | undefined {
  const system = SYSTEM_DIRECTORIES.find((dir) => isInside(root, dir));
  if (system) return `must not lie in ${system}`;
  if (root === dataDir) return 'must not be SVC_DATA_DIR itself (the default is its companies/ folder)';
  const data = serviceDataFolders(dataDir).find((dir) => isInside(root, dir));
  if (data) return `must not lie in ${data}, which the service keeps`;
  return undefined;
}

/**
 * The allowed root and the refused directories: the kernel's, the service's data folders, and the
 * whole data directory when the root contains it (a root inside it, the default, allows only itself).
 */
function companyRootPolicy(dataDir: string, allowed: string): CompanyRootPolicy {
  const data = isInside(dataDir, allowed) ? [dataDir] : serviceDataFolders(dataDir);
  return { allowed, refused: [...SYSTEM_DIRECTORIES, ...data] };
}

// The environment mapped onto the names the code uses; Config's type follows from it.
const ConfigSchema = EnvSchema.transform((e) => ({
  port: e.PORT,
  host: e.HOST,
  databaseUrl: e.DATABASE_URL,
  dataDir: path.resolve(e.SVC_DATA_DIR),
  /** Where company initialization's rootPath may lie (SVC_COMPANY_ROOT), and where never. */
  companyRoot: companyRootPolicy(path.resolve(e.SVC_DATA_DIR), companyRootOf(e)),
  embeddedPgPort: e.SVC_EMBEDDED_PG_PORT,
  /** {base_url}; when unset, derived from the address the server listens on. */
  baseUrl: e.SVC_BASE_URL,
  productionBase: e.SVC_PRODUCTION_BASE,
  developerBase: e.SVC_DEVELOPER_BASE,
  maxBodyBytes: e.SVC_MAX_BODY_BYTES,
  bodyBufferBytes: e.SVC_BODY_BUFFER_BYTES,
  logLevel: e.SVC_LOG_LEVEL,
  /** pretty: one readable line per event; json: one JSON object per line. Unset: pretty on a terminal only. */
  logFormat: e.SVC_LOG_FORMAT,
  shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
  shutdownDelayMs: e.SVC_SHUTDOWN_DELAY_MS,
  temporalAddress: e.TEMPORAL_ADDRESS,
  temporalNamespace: e.TEMPORAL_NAMESPACE,
  /** Port of the in-memory Temporal server's Web UI (0: a free port; undefined: no UI). */
  temporalUiPort: e.SVC_TEMPORAL_UI_PORT === 'off' ? undefined : e.SVC_TEMPORAL_UI_PORT,
  /** The Temporal Web UI that shows TEMPORAL_ADDRESS's runs; the embedded server's own is known without it. */
  temporalUiUrl: e.SVC_TEMPORAL_UI_URL,
  /** Payload encryption keys, the current one first; unset: the data folder's generated key. */
  payloadKeys: e.SVC_TEMPORAL_PAYLOAD_KEYS,
  /** Keys sealing every secret svc keeps (cameras, data connections), the current one first; unset: the data folder's generated key. */
  secretKeys: e.SVC_SECRET_KEYS,
  /** How cameras are reached (domain/vision). */
  camera: { timeoutMs: e.SVC_CAMERA_TIMEOUT_MS, allowLoopback: e.SVC_CAMERA_LOOPBACK === 'allow' },
  /** Sources may be on non-public addresses (and plain http). */
  connectivityPrivateNetworks: e.SVC_CONNECTIVITY_PRIVATE_NETWORKS === 'allow',
  /** Workflow runs a worker keeps in memory between tasks (Temporal's maxCachedWorkflows). */
  temporalCachedWorkflows: e.SVC_TEMPORAL_CACHED_WORKFLOWS,
  trustedProxies: e.SVC_TRUSTED_PROXIES,
  operator:
    e.SVC_OPERATOR_LOGIN && e.SVC_OPERATOR_PASSWORD
      ? { login: e.SVC_OPERATOR_LOGIN, password: e.SVC_OPERATOR_PASSWORD, email: e.SVC_OPERATOR_EMAIL }
      : undefined,
  /** Where version files live: the database's blobs table, or an S3 bucket (several API processes share either). */
  blobStore: e.SVC_BLOB_STORE.kind === 's3' ? { ...e.SVC_BLOB_STORE, endpoint: e.SVC_BLOB_STORE_ENDPOINT } : e.SVC_BLOB_STORE,
  /** Bound of the in-process cache of blob bytes (0: no cache). */
  blobCacheBytes: e.SVC_BLOB_CACHE_BYTES,
  /** Bound of the in-process cache of hosted files' compressed copies. */
  hostingCompressedCacheBytes: e.SVC_HOSTING_COMPRESSED_CACHE_BYTES,
  /** The blob sweep's grace period: blobs written or re-used within it are kept. */
  blobSweepGraceMs: e.SVC_BLOB_SWEEP_GRACE_HOURS * 3_600_000,
  /** How long one ontology SQL statement may run (the spec: 20 seconds). */
  sqlStatementTimeoutMs: e.SVC_SQL_STATEMENT_TIMEOUT_MS,
  /** Ontology SQL queries one process runs at once, each on a connection of its own (never the service's pool). */
  sqlMaxConnections: e.SVC_SQL_MAX_CONNECTIONS,
  /** Of those, at most this many for one company (capped at sqlMaxConnections). */
  sqlCompanyConnections: e.SVC_SQL_COMPANY_CONNECTIONS,
  /** The nice value of ontology SQL backends (and their CPU group) when PostgreSQL runs on this machine; 0 leaves them alone. */
  sqlBackendNice: e.SVC_SQL_BACKEND_NICE,
  /** How long a control-plane call waits for the relay to report the run it started or joined. */
  runStartWaitMs: e.SVC_RUN_START_WAIT_MS,
  /** Workflow notify emails: SMTP (`smtp://user:pass@host:port`, `smtps://…`); unset, messages are recorded and not sent. */
  mail: { smtpUrl: e.SVC_SMTP_URL, from: e.SVC_MAIL_FROM },
  /** Where company initialization makes server instances: simulated on this machine (local) or EC2. */
  cloud:
    e.SVC_CLOUD_PROVIDER === 'aws'
      ? { kind: 'aws' as const, imageId: e.SVC_AWS_IMAGE_ID!, instanceType: e.SVC_AWS_INSTANCE_TYPE }
      : { kind: 'local' as const, dir: path.resolve(e.SVC_LOCAL_CLOUD_DIR ?? path.join(e.SVC_DATA_DIR, 'local-cloud')) },
}));

export type Config = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The spec's {base_url}, {production_base} and {developer_base}, defaulting from the listening address. */
export function publicAddresses(config: Config, listening: { host: string; port: number }): PublicAddresses {
  const baseUrl = config.baseUrl ?? `http://${listening.host}:${listening.port}`;
  return {
    baseUrl,
    productionBase: config.productionBase ?? `${baseUrl}/p`,
    developerBase: config.developerBase ?? `${baseUrl}/d`,
  };
}
