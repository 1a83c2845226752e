import http from 'node:http';
import type net from 'node:net';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import { type Config, publicAddresses, type PublicAddresses } from './config.ts';
import { bootstrapOperator } from './accounts/bootstrap-operator.ts';
import { connectDatabase } from './db/connect.ts';
import { type RunningPostgres, startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { AppDeps } from './deps.ts';
import type { AnyRoute } from './http/route.ts';
import { runWorker } from '../worker/run-worker.ts';
import { connectTemporal, type TemporalConnections } from '../worker/temporal.ts';
import { temporalWorkflowGateway } from '../worker/workflow-gateway.ts';
import { routes as allRoutes } from './routes.ts';
import { PRODUCTION_SCRYPT, type ScryptParams } from './security/password-hash.ts';
import { ensureInstance } from './system/instance.ts';

export interface RunningService {
  url: string;
  temporal: TemporalConnections;
  addresses: PublicAddresses;
  deps: AppDeps;
  /** Stop accepting, let in-flight requests finish (up to the grace period), close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  routes?: readonly AnyRoute[];
  /** Tests lower the scrypt cost to keep the suite fast; production never sets this. */
  passwordHashing?: ScryptParams;
  /** Run the Temporal worker in this process (default true; API-only tests turn it off). */
  worker?: boolean;
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded: RunningPostgres = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPgPort,
        onLog: (line) => logger.debug({ component: 'postgres' }, line),
      });
      cleanups.push(() => embedded.stop());
      logger.info({ dataDir: config.dataDir, port: embedded.port }, 'embedded PostgreSQL started');
      databaseUrl = embedded.url;
    }
    const db = connectDatabase({
      connectionString: databaseUrl,
      onIdleError: (err) => logger.warn({ err }, 'idle database connection lost'),
    });
    cleanups.push(() => db.destroy());
    const applied = await migrateToLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    await ensureInstance(db);
    const passwordHashing = opts.passwordHashing ?? PRODUCTION_SCRYPT;
    const operator = await bootstrapOperator(db, config, passwordHashing);
    if (operator === 'created') logger.info({ login: config.operator?.login }, 'operator account created');

    const temporal = await connectTemporal({ address: config.temporalAddress, namespace: config.temporalNamespace, logger });
    cleanups.push(() => temporal.close());
    if (opts.worker !== false) {
      const worker = await runWorker(temporal, { db, logger });
      cleanups.push(() => worker.stop());
    }

    let addresses: PublicAddresses | undefined;
    const deps: AppDeps = {
      config,
      db,
      logger,
      passwordHashing,
      workflows: temporalWorkflowGateway(temporal.client, logger),
      addresses: () => {
        if (!addresses) throw new Error('addresses are known once the server listens');
        return addresses;
      },
    };
    const app = createApp(deps, opts.routes ?? allRoutes);
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const { port } = server.address() as net.AddressInfo;
    addresses = publicAddresses(config, { host: config.host, port });
    cleanups.push(() => closeServer(server, config.shutdownGraceMs));

    let stopping: Promise<void> | undefined;
    return {
      url: `http://${config.host}:${port}`,
      temporal,
      addresses,
      deps,
      stop: () => (stopping ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * Stop accepting; keep-alive sockets close as soon as they are idle (their
 * request answered), and any still busy when the grace runs out are cut.
 */
function closeServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
