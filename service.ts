import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Logger, pino } from 'pino';
import { TEMPORAL_CODEC_PATH } from './api/admin/routes.ts';
import { createApp } from './api/app.ts';
import type { ApiDeps } from './api/deps.ts';
import { BodyBuffer } from './api/http/body-buffer.ts';
import { drainable } from './api/http/drain.ts';
import type { AnyRoute } from './api/http/route.ts';
import { routes as allRoutes } from './api/routes.ts';
import { type Config, ConfigError, publicAddresses } from './config.ts';
import { bootstrapOperator, dummyHash } from './domain/accounts/index.ts';
import { localModelProvider } from './domain/app-workflows/index.ts';
import { cachedBlobStore, postgresBlobBackend, postgresBlobLedger } from './domain/apps/index.ts';
import { connectDatabase, type Db, migrateToLatest } from './domain/db/index.ts';
import { type Clock, type PublicAddresses, systemClock } from './domain/deps.ts';
import { startOpenRecorder } from './domain/hosting/index.ts';
import { startKeyUseRecorder, startPrincipalCache } from './domain/keys/index.ts';
import { type Mailer, unconfiguredMailer } from './domain/mail/index.ts';
import { UploadHashes } from './domain/media/index.ts';
import { SqlGate, startChangeHub } from './domain/ontology/index.ts';
import type { CompanyRootPolicy } from './domain/provisioning/index.ts';
import { createSecretBox, PRODUCTION_SCRYPT, type ScryptParams } from './domain/security/index.ts';
import { databaseCheck, ensureInstance, type ReadinessCheck, readinessCheck, shutdownCheck } from './domain/system/index.ts';
import { createCameraService } from './domain/vision/index.ts';
import { serveAdminSocket } from './infra/backup/admin-socket.ts';
import { backupRequests, stateElsewhere } from './infra/backup/backup-requests.ts';
import { localCloudProvider } from './infra/cloud/local-provider.ts';
import { smtpMailer } from './infra/mail/smtp-mailer.ts';
import { startEmbeddedPostgres } from './infra/postgres/embedded-postgres.ts';
import { AesGcmPayloadCodec, generatedPayloadKey } from './infra/temporal-codec/payload-codec.ts';
import type { TemporalConnections } from './worker/connect-temporal.ts';
import type { StartedTemporal } from './worker/start-temporal.ts';

// The composition root: the one place that starts the database, Temporal, the worker with the
// outbox relay, and the HTTP server, and wires the dependencies each layer declares.

/**
 * all: everything in one process (`npm start`). api: the HTTP server only (it needs no
 * Temporal: workflow starts go through the outbox). worker: the Temporal worker and the
 * outbox relay only. API and worker processes scale separately over one DATABASE_URL.
 */
export type Role = 'all' | 'api' | 'worker';
export const ROLES: readonly Role[] = ['all', 'api', 'worker'];

export interface RunningService {
  role: Role;
  /** The HTTP server's address (roles all and api). */
  url: string | undefined;
  /** The Temporal connection (roles all and worker). */
  temporal: TemporalConnections | undefined;
  addresses: PublicAddresses;
  deps: ApiDeps;
  /** Stop accepting, let in-flight requests finish (up to the grace period), stop the worker, close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  role?: Role;
  logger?: Logger;
  routes?: readonly AnyRoute[];
  /** Tests lower the scrypt cost to keep the suite fast; production never sets this. */
  passwordHashing?: ScryptParams;
  /** Tests set the time of rate-limit windows and the lockout; production uses the system clock. */
  clock?: Clock;
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  const role = opts.role ?? 'all';
  if (role !== 'all' && !config.databaseUrl) {
    // The embedded PostgreSQL belongs to one process; separate roles must share a server.
    throw new ConfigError(`the ${role} role runs beside other processes: set DATABASE_URL to their shared PostgreSQL`);
  }
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPgPort,
        onLog: (line) => logger.debug({ component: 'postgres' }, line),
      });
      cleanups.push(() => embedded.stop());
      logger.info(
        { dataDir: config.dataDir, port: embedded.port, backendMemoryLimit: embedded.backendMemoryLimit },
        'embedded PostgreSQL started',
      );
      if ('unavailable' in embedded.backendMemoryLimit) {
        logger.warn(
          { reason: embedded.backendMemoryLimit.unavailable },
          'embedded PostgreSQL runs without a memory ceiling per backend: one ontology SQL query may take up to several GB',
        );
      }
      databaseUrl = embedded.socketUrl ?? embedded.url;
    }
    const db = connectDatabase({
      connectionString: databaseUrl,
      onIdleError: (err) => logger.warn({ err }, 'idle database connection lost'),
    });
    cleanups.push(() => db.destroy());
    const applied = await migrateToLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    const instance = await ensureInstance(db);
    const companyRoot = await withPostgresDataDirectory(db, config.companyRoot);
    const passwordHashing = opts.passwordHashing ?? PRODUCTION_SCRYPT;
    const principals = await startPrincipalCache({ databaseUrl, logger });
    cleanups.push(() => principals.stop());
    const keyUses = startKeyUseRecorder(db, logger);
    cleanups.push(() => keyUses.stop());
    const opens = startOpenRecorder(db, logger, opts.clock ?? systemClock);
    cleanups.push(() => opens.stop());

    let mailer: Mailer = unconfiguredMailer;
    if (config.mail.smtpUrl) {
      const smtp = smtpMailer({ url: config.mail.smtpUrl, from: config.mail.from });
      cleanups.push(async () => smtp.close());
      mailer = smtp;
    }

    // The AWS SDK is loaded only when configured: it adds about half a second to every start.
    const blobBackend =
      config.blobStore.kind === 's3'
        ? (await import('./infra/blobs/s3-blob-backend.ts')).s3BlobBackend(config.blobStore)
        : postgresBlobBackend(db);
    // Readiness probes what this role uses; Temporal's check joins once it is connected (below).
    const readiness: ReadinessCheck[] = [
      databaseCheck(db),
      blobBackend.reachable
        ? readinessCheck('blobStore', blobBackend.reachable)
        : { name: 'blobStore', skipped: 'version files are in the database: the database check covers them' },
    ];
    // The one sealer of every secret svc keeps (camera credentials, data connections' secrets): the
    // configured keys, else the data folder's generated one (every role seals or opens them).
    const secrets = createSecretBox(
      config.secretKeys ?? [
        (await generatedPayloadKey(config.dataDir, { create: true, file: path.join(config.dataDir, 'secrets', 'secret.key') }))!,
      ],
    );
    const connectivity = { secrets, privateNetworks: config.connectivityPrivateNetworks };
    let addresses = publicAddresses(config, { host: config.host, port: config.port });
    const deps: ApiDeps = {
      connectivity,
      db,
      logger,
      passwordHashing,
      clock: opts.clock ?? systemClock,
      principals,
      keyUses,
      opens,
      companyRoot,
      addresses: () => addresses,
      ...(config.temporalUiUrl ? { temporalUi: { url: config.temporalUiUrl, namespace: config.temporalNamespace } } : {}),
      blobs: cachedBlobStore(blobBackend, config.blobCacheBytes, postgresBlobLedger(db)),
      compressedCacheBytes: config.hostingCompressedCacheBytes,
      // Where the worker runs here too (role all), its assemblies use what the API hashed.
      ...(role === 'all' ? { uploadHashes: new UploadHashes() } : {}),
      mailer,
      // Evolve's suggestions ask the same provider as workflow `model` steps (the worker's, below).
      models: localModelProvider,
      ontologySql: {
        databaseUrl,
        statementTimeoutMs: config.sqlStatementTimeoutMs,
        backendNice: config.sqlBackendNice,
        gate: new SqlGate({
          maxRunning: config.sqlMaxConnections,
          perCompany: config.sqlCompanyConnections,
          // A waiter waits at most as long as one statement may run.
          maxWaitMs: config.sqlStatementTimeoutMs,
        }),
      },
      http: {
        maxBodyBytes: config.maxBodyBytes,
        bodyBuffer: new BodyBuffer(config.bodyBufferBytes),
        trustedProxies: config.trustedProxies,
        runStartWaitMs: config.runStartWaitMs,
      },
      health: { instance, readiness },
    };

    // The worker creates instances with it; provisioning-status compares the record with it.
    const cloud =
      config.cloud.kind === 'aws'
        ? (await import('./infra/cloud/aws-ec2-provider.ts')).awsCloudProvider(config.cloud)
        : localCloudProvider({ dir: config.cloud.dir });
    deps.cloud = cloud;

    // The payload keys: configured, else the data folder's generated one (made by the roles that
    // write payloads; the api role only decodes, with the worker's key when it shares the folder).
    const payloadKeys =
      config.payloadKeys ?? [await generatedPayloadKey(config.dataDir, { create: role !== 'api' })].filter((k) => k !== undefined);
    const codec = payloadKeys.length ? new AesGcmPayloadCodec(payloadKeys) : undefined;
    if (codec) deps.payloadDecoder = codec;
    deps.cameras = createCameraService(config.camera, secrets);
    let temporal: StartedTemporal | undefined;
    if (role !== 'api') {
      const { startTemporal } = await import('./worker/start-temporal.ts');
      const started = await startTemporal({
        settings: {
          address: config.temporalAddress,
          namespace: config.temporalNamespace,
          dataDir: config.dataDir,
          uiPort: config.temporalUiPort,
          cachedWorkflows: config.temporalCachedWorkflows,
          keySource: config.payloadKeys ? 'SVC_TEMPORAL_PAYLOAD_KEYS' : 'generated key file',
        },
        codec: codec!,
        databaseUrl,
        logger,
        activityDeps: {
          db,
          cloud,
          companyRoot,
          mailer,
          models: localModelProvider,
          connectivity,
          blobs: deps.blobs,
          ...(deps.uploadHashes ? { uploadHashes: deps.uploadHashes } : {}),
          blobSweepGraceMs: config.blobSweepGraceMs,
        },
      });
      temporal = started;
      cleanups.push(() => started.stop());
      deps.liveRuns = started.liveRuns;
      deps.appSchedules = started.appSchedules;
      if (!deps.temporalUi && started.connected.uiUrl)
        deps.temporalUi = { url: started.connected.uiUrl, namespace: config.temporalNamespace };
    }

    if (!config.databaseUrl) {
      // `npm run backup` asks this process for a backup of its data folder while it runs.
      const admin = await serveAdminSocket(
        config.dataDir,
        backupRequests({
          dataDir: config.dataDir,
          postgresUrl: databaseUrl,
          copyTemporalState: temporal?.connected.copyEmbeddedState,
          elsewhere: stateElsewhere({
            dataDir: config.dataDir,
            companyRoot: config.companyRoot.allowed,
            localCloudDir: config.cloud.kind === 'local' ? config.cloud.dir : undefined,
            blobStore: config.blobStore,
          }),
        }),
      );
      if ('unavailable' in admin)
        logger.warn(
          { reason: admin.unavailable },
          'no admin socket: `npm run backup` can back up this data folder only while svc is stopped',
        );
      else cleanups.push(() => admin.close());
    }

    const started = temporal;
    readiness.push(
      started
        ? readinessCheck('temporal', (signal) => started.probe(signal))
        : { name: 'temporal', skipped: 'the api role does not use Temporal: workflow starts wait in the outbox' },
    );

    let url: string | undefined;
    if (role !== 'worker') {
      // Computed on the thread pool while the server starts: the first unknown login then awaits it
      // rather than computing a second hash, and start-up does not wait for it.
      dummyHash(deps).catch((err: unknown) => logger.error({ err }, 'cannot prepare the password check'));
      const operator = await bootstrapOperator(db, config.operator, passwordHashing);
      if (operator === 'created') logger.info({ login: config.operator?.login }, 'operator account created');
      const changes = await startChangeHub({ db, databaseUrl, logger });
      deps.ontologyChanges = changes;
      cleanups.push(() => changes.stop());
      const server = http.createServer(createApp(deps, opts.routes ?? allRoutes).callback());
      const drain = drainable(server);
      const shutdown = shutdownCheck();
      readiness.push(shutdown.check);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const { port } = server.address() as net.AddressInfo;
      addresses = publicAddresses(config, { host: config.host, port });
      url = `http://${config.host}:${port}`;
      // The embedded Web UI decodes payloads through svc's codec endpoint, known only now.
      temporal?.connected.setUiCodecEndpoint(`${addresses.baseUrl}${TEMPORAL_CODEC_PATH}`);
      cleanups.push(async () => {
        // Readiness fails while the process still serves, so a balancer probing it stops sending
        // before the listener closes: closing it resets connections the kernel accepted for us.
        shutdown.begin();
        await sleep(config.shutdownDelayMs);
        // The hub stops first: it ends the subscription streams, which never end by themselves.
        await changes.stop();
        await drain(config.shutdownGraceMs);
      });
    }

    let stopping: Promise<void> | undefined;
    return { role, url, temporal: temporal?.connected, addresses, deps, stop: () => (stopping ??= cleanup()) };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The database's own data directory joins the refused ones when the service may read it
 * (superusers and pg_read_all_settings): a PostgreSQL on this machine is never written into,
 * embedded (under SVC_DATA_DIR, refused anyway) or not.
 */
async function withPostgresDataDirectory(db: Db, policy: CompanyRootPolicy): Promise<CompanyRootPolicy> {
  const dir = await sql<{ data_directory: string }>`SHOW data_directory`.execute(db).then(
    (r) => r.rows[0]?.data_directory,
    () => undefined, // insufficient_privilege: the server keeps it to itself
  );
  return dir && path.isAbsolute(dir) ? { ...policy, refused: [...policy.refused, path.normalize(dir)] } : policy;
}
