import { type Config, ConfigError, loadConfig } from './config.ts';
import { createLogger } from './infra/log/create-logger.ts';
import { EmbeddedPostgresError } from './infra/postgres/embedded-postgres.ts';
import { ROLES, type Role, type RunningService, startService } from './service.ts';

// `npm start` (all roles), `npm run api`, `npm run worker`: the process entry. Logs are
// readable lines on a terminal and JSON lines elsewhere (SVC_LOG_FORMAT overrides).

function loggerFor(config: Config) {
  const format = config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return createLogger({ level: config.logLevel, format, colorize: process.stdout.isTTY === true });
}

/** What `npm start` prints once it listens: where everything is. */
function banner(svc: RunningService, role: Role): string {
  const { addresses, temporal, url } = svc;
  const lines = url ? [`svc listening on ${url} (role ${role})`] : [`svc ${role} started`];
  if (url) {
    lines.push(
      `  OpenAPI:    ${url}/api/v1/openapi.json`,
      `  base:       ${addresses.baseUrl}`,
      `  production: ${addresses.productionBase}`,
      `  developer:  ${addresses.developerBase}`,
    );
  }
  if (temporal) {
    const embedded = temporal.embeddedStateFile ? ` (embedded server, local use only; state in ${temporal.embeddedStateFile})` : '';
    lines.push(`  temporal:   ${temporal.address}${embedded}`);
  }
  if (temporal?.uiUrl) lines.push(`  Temporal UI: ${temporal.uiUrl}`);
  return `${lines.join('\n')}\n`;
}

const role = (process.argv[2] ?? 'all') as Role;

// Signals are ours from the first line: without a listener, SIGTERM kills the process at once and
// leaves the embedded PostgreSQL running, which happened to a SIGTERM sent as soon as the
// "listening" line was read. One that arrives while the service starts stops it once it is up;
// a second one means "now".
let service: RunningService | undefined;
let pending: NodeJS.Signals | undefined;
let signals = 0;
const shutdown = (running: RunningService, signal: NodeJS.Signals) => {
  running.deps.logger.info({ signal }, 'shutting down');
  running.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
const onSignal = (signal: NodeJS.Signals) => {
  if (++signals > 1) process.exit(1);
  if (service) shutdown(service, signal);
  else pending = signal;
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

try {
  if (!ROLES.includes(role)) throw new ConfigError(`unknown role ${JSON.stringify(role)}: use one of ${ROLES.join(', ')}`);
  const config = loadConfig();
  service = await startService(config, { role, logger: loggerFor(config) });
  if (pending) shutdown(service, pending);
  else {
    // The log lines of the start-up come first (logs are written in batches).
    service.deps.logger.flush();
    process.stdout.write(banner(service, role));
  }
} catch (err) {
  if (err instanceof ConfigError || err instanceof EmbeddedPostgresError) {
    process.stderr.write(`svc: ${err.message}\n`);
  } else {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
}
