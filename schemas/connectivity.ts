import { z } from 'zod';
import { ObjectTypeApiName, PropertyApiName } from './ontology.ts';

// Data connections, syncs and builds (spec G: /api/v1/connectivity/**, /api/v1/orchestration/builds/**;
// shapes are ours, Foundry's are not public). Secrets are write-only: a connection's answers
// say whether it holds one, never what it is.

export const ConnectionId = z.string().regex(/^dcn_[0-9A-Za-z]{10,40}$/, 'must be a connection id (dcn_…)');
export const SyncId = z.string().regex(/^dsy_[0-9A-Za-z]{10,40}$/, 'must be a sync id (dsy_…)');
export const BuildId = z.string().regex(/^bld_[0-9A-Za-z]{10,40}$/, 'must be a build id (bld_…)');

const Name = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be 1-63 of a-z, 0-9 and -, starting with a letter')
  .meta({ description: 'Unique in the company.' });
/** A PostgreSQL identifier of the source (schema, table, column): plain names only, quoted when used. */
const SqlName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain SQL name (letters, digits, _)');
const Secret = (what: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine((v) => !v.includes('\u0000'), 'must not contain U+0000')
    .meta({ description: `${what} Write-only: stored encrypted, never returned or logged.`, writeOnly: true });

/** A connection string that names its server in the URL's host, where the address rule looks (not in a `host` parameter or a socket path). */
function namesItsHost(connectionString: string): boolean {
  try {
    const url = new URL(connectionString);
    return url.hostname !== '' && !url.searchParams.has('host') && !url.searchParams.has('hostaddr');
  } catch {
    return false;
  }
}

/** A URL that is shown back: no user or password in it. */
const withoutCredentials = (url: string) => URL.canParse(url) && new URL(url).username === '' && new URL(url).password === '';

const S3Bucket = z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name');
const S3Prefix = z
  .string()
  .max(512)
  .refine((v) => !v.includes('\u0000'), 'must not contain U+0000')
  .default('');

export const CreateConnectionInput = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('postgresql'),
    name: Name,
    connectionString: Secret('`postgres://user:password@host:port/database` (TLS parameters as libpq reads them).')
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .refine(namesItsHost, 'must name the server in its host part (no host or hostaddr parameter, which would bypass the address rule)'),
  }),
  z.strictObject({
    kind: z.literal('s3'),
    name: Name,
    bucket: S3Bucket,
    prefix: S3Prefix,
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/)
      .default('us-east-1'),
    endpoint: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .refine(withoutCredentials, 'must not hold a user or password')
      .optional()
      .meta({ description: 'An S3-compatible endpoint; unset: AWS.' }),
    accessKeyId: z.string().min(1).max(128).optional(),
    secretAccessKey: Secret('The secret of `accessKeyId`.').optional(),
  }),
  z.strictObject({
    kind: z.literal('https'),
    name: Name,
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .refine(withoutCredentials, 'must not hold a user or password (the URL is shown; put credentials in `authorization`)')
      .meta({ description: 'Answers a JSON array, or an object with the array at `itemsPath`.' }),
    authorization: Secret('The `Authorization` header sent with each request.').optional(),
  }),
]);
export type CreateConnectionInput = z.output<typeof CreateConnectionInput>;

export const ConnectionView = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['postgresql', 's3', 'https']),
    settings: z.record(z.string(), z.unknown()).meta({ description: 'What is not secret: bucket, prefix, region, endpoint, URL.' }),
    hasSecret: z.boolean().meta({ description: 'Whether a secret is stored (it is never returned).' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'DataConnection' });
export type ConnectionView = z.input<typeof ConnectionView>;

export const ConnectionTestResult = z
  .object({
    ok: z.boolean(),
    message: z.string().meta({ description: 'What was reached, or why not (never a secret).' }),
    durationMs: z.number(),
  })
  .meta({ id: 'DataConnectionTest' });

export const SyncSource = z.union([
  z.strictObject({ table: SqlName, schema: SqlName.default('public') }).meta({ description: 'A PostgreSQL table or view.' }),
  z
    .strictObject({
      pattern: z.string().min(1).max(300).meta({ description: 'Object keys under the prefix, `*` matching any characters but `/`.' }),
      format: z.enum(['csv', 'jsonl', 'parquet']),
    })
    .meta({ description: 'Files of an S3 connection.' }),
  z
    .strictObject({
      itemsPath: z
        .string()
        .regex(/^[A-Za-z0-9_]{1,64}(\.[A-Za-z0-9_]{1,64}){0,4}$/)
        .optional(),
    })
    .meta({ description: 'The HTTPS connection’s endpoint.' }),
]);

/** Property of an object type → column (or field) of a source: a sync's and a stream binding's. */
export const SourceMapping = z
  .record(PropertyApiName, z.string().min(1).max(63))
  .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 200, 'must map 1 to 200 properties')
  .meta({ description: 'Property of the object type → column (or field) of the source; must map the primary key.' });

export const CreateSyncInput = z.strictObject({
  name: Name,
  connectionId: ConnectionId,
  objectType: ObjectTypeApiName,
  source: SyncSource,
  mapping: SourceMapping,
  mode: z.enum(['incremental', 'full']).default('full'),
  cursorColumn: SqlName.optional().meta({
    description: 'Incremental syncs (PostgreSQL): rows come in (cursorColumn, key) order after the last committed one.',
  }),
  pageSize: z.number().int().min(1).max(5000).default(1000),
  schedule: z
    .string()
    .regex(/^(\S+\s+){4}\S+$/, 'must be a five-field cron expression')
    .max(120)
    .nullable()
    .default(null)
    .meta({ description: 'A cron expression (UTC): a Temporal Schedule starts a build of this sync.' }),
});
export type CreateSyncInput = z.output<typeof CreateSyncInput>;

export const SyncView = z
  .object({
    id: z.string(),
    name: z.string(),
    connectionId: z.string(),
    objectType: z.string(),
    source: z.record(z.string(), z.unknown()),
    mapping: z.record(z.string(), z.string()),
    mode: z.enum(['incremental', 'full']),
    cursorColumn: z.string().nullable(),
    pageSize: z.number(),
    schedule: z.string().nullable(),
    cursor: z.unknown().meta({ description: 'The last committed incremental position (null: from the start).' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'DataSync' });
export type SyncView = z.input<typeof SyncView>;

export const CreateBuildInput = z.strictObject({
  jobs: z
    .array(
      z.strictObject({
        syncId: SyncId,
        dependsOn: z.array(SyncId).max(50).default([]).meta({ description: 'Syncs of this build that must succeed first.' }),
      }),
    )
    .min(1)
    .max(50),
});
export type CreateBuildInput = z.output<typeof CreateBuildInput>;

const Status = z.enum(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']);
export const BuildView = z
  .object({
    id: z.string(),
    status: Status,
    trigger: z.enum(['api', 'schedule']),
    workflowId: z.string().meta({ description: 'The Temporal workflow id: the build’s run in the Temporal Web UI.' }),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    durationMs: z.number().nullable(),
    jobs: z.array(
      z.object({
        position: z.number(),
        syncId: z.string().nullable(),
        syncName: z.string(),
        dependsOn: z.array(z.number()).meta({ description: 'Positions of the jobs this one waits for.' }),
        status: z.enum(['WAITING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']),
        rowsRead: z.number(),
        rowsWritten: z.number(),
        pages: z.number(),
        startedAt: z.iso.datetime().nullable(),
        finishedAt: z.iso.datetime().nullable(),
        durationMs: z.number().nullable(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
      }),
    ),
  })
  .meta({ id: 'DataBuild' });
export type BuildView = z.input<typeof BuildView>;

/** The answer of `POST /api/v1/ontologies/{ns}/datasources/platform/sync`. */
export const PlatformSyncRequested = z
  .object({
    status: z.literal('REQUESTED'),
    workflowId: z
      .string()
      .meta({ description: 'The company’s platform sync run in the Temporal Web UI (one at a time: a request while it runs joins it).' }),
    objectTypes: z.array(z.string()).meta({ description: 'The read-only `platform.*` object types the run fills.' }),
  })
  .meta({ id: 'PlatformSyncRequested' });
