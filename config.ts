import path from 'node:path';
import { z } from 'zod';
import type { PublicAddresses } from './domain/deps.ts';
import { type CompanyRootPolicy, isInside, SYSTEM_DIRECTORIES } from './domain/provisioning/index.ts';

// Every environment variable the service reads, validated once at start.
// README.md documents each of them; keep the two in step.

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

const EnvSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: unsetIfBlank(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
        .optional(),
    ),
    SVC_DATA_DIR: z.string().min(1).default('./.data'),
    SVC_COMPANY_ROOT: unsetIfBlank(z.string().optional()),
    SVC_EMBEDDED_PG_PORT: unsetIfBlank(port.optional()),
    SVC_BASE_URL: unsetIfBlank(httpUrl.optional()),
    SVC_PRODUCTION_BASE: unsetIfBlank(httpUrl.optional()),
    SVC_DEVELOPER_BASE: unsetIfBlank(httpUrl.optional()),
    SVC_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(8 * 1024 * 1024),
    SVC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SVC_LOG_FORMAT: unsetIfBlank(z.enum(['pretty', 'json']).optional()),
    SVC_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    TEMPORAL_ADDRESS: unsetIfBlank(
      z
        .string()
        .regex(/^[^\s:]+:\d+$/, 'must be host:port')
        .optional(),
    ),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    SVC_TEMPORAL_UI_PORT: z.union([z.literal('off'), port]).default(8233),
    SVC_TEMPORAL_UI_URL: unsetIfBlank(httpUrl.optional()),
    SVC_TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((s) =>
        s
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.union([z.ipv4(), z.ipv6()]))),
    SVC_OPERATOR_LOGIN: unsetIfBlank(z.string().min(1).max(254).optional()),
    SVC_OPERATOR_PASSWORD: unsetIfBlank(z.string().min(12, 'must be at least 12 characters').max(256).optional()),
    SVC_OPERATOR_EMAIL: unsetIfBlank(z.email().optional()),
    SVC_BLOB_STORE: unsetIfBlank(blobStore.default({ kind: 'postgres' })),
    SVC_BLOB_STORE_ENDPOINT: unsetIfBlank(httpUrl.optional()),
    SVC_RUN_START_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
    SVC_CLOUD_PROVIDER: z.enum(['local', 'aws']).default('local'),
    SVC_AWS_IMAGE_ID: unsetIfBlank(
      z
        .string()
        .regex(/^ami-[0-9a-f]{8,17}$/, 'must be an AMI id (ami-…)')
        .optional(),
    ),
    SVC_AWS_INSTANCE_TYPE: z
      .string()
      .regex(/^[a-z0-9-]+\.[a-z0-9]+$/, 'must be an instance type such as t3.small')
      .default('t3.small'),
    SVC_SMTP_URL: unsetIfBlank(z.url({ protocol: /^smtps?$/ }).optional()),
    SVC_MAIL_FROM: z.email().default('svc@localhost'),
    SVC_SQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
    SVC_SQL_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(4),
    SVC_SQL_COMPANY_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(2),
    SVC_SQL_BACKEND_NICE: z.coerce.number().int().min(0).max(19).default(19),
    SVC_BLOB_CACHE_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
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
  return ['postgres', 'temporal', 'cache', 'local-cloud'].map((name) => path.join(dataDir, name));
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
  logLevel: e.SVC_LOG_LEVEL,
  /** pretty: one readable line per event; json: one JSON object per line. Unset: pretty on a terminal only. */
  logFormat: e.SVC_LOG_FORMAT,
  shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
  temporalAddress: e.TEMPORAL_ADDRESS,
  temporalNamespace: e.TEMPORAL_NAMESPACE,
  /** Port of the in-memory Temporal server's Web UI (0: a free port; undefined: no UI). */
  temporalUiPort: e.SVC_TEMPORAL_UI_PORT === 'off' ? undefined : e.SVC_TEMPORAL_UI_PORT,
  /** The Temporal Web UI that shows TEMPORAL_ADDRESS's runs; the embedded server's own is known without it. */
  temporalUiUrl: e.SVC_TEMPORAL_UI_URL,
  trustedProxies: e.SVC_TRUSTED_PROXIES,
  operator:
    e.SVC_OPERATOR_LOGIN && e.SVC_OPERATOR_PASSWORD
      ? { login: e.SVC_OPERATOR_LOGIN, password: e.SVC_OPERATOR_PASSWORD, email: e.SVC_OPERATOR_EMAIL }
      : undefined,
  /** Where version files live: the database's blobs table, or an S3 bucket (several API processes share either). */
  blobStore: e.SVC_BLOB_STORE.kind === 's3' ? { ...e.SVC_BLOB_STORE, endpoint: e.SVC_BLOB_STORE_ENDPOINT } : e.SVC_BLOB_STORE,
  /** Bound of the in-process cache of blob bytes (0: no cache). */
  blobCacheBytes: e.SVC_BLOB_CACHE_BYTES,
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
      : { kind: 'local' as const },
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
