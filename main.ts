import { type Config, ConfigError, loadConfig } from './config.ts';
import { createLogger } from './infra/log/create-logger.ts';
import { EmbeddedPostgresError } from './infra/postgres/embedded-postgres.ts';
import { ROLES, type Role, startService } from './service.ts';

// `npm start` (all roles), `npm run api`, `npm run worker`: the process entry. Logs are
// readable lines on a terminal and JSON lines elsewhere (SVC_LOG_FORMAT overrides).

function loggerFor(config: Config) {
  const format = config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return createLogger({ level: config.logLevel, format, colorize: process.stdout.isTTY === true });
}

const role = (process.argv[2] ?? 'all') as Role;
try {
  if (!ROLES.includes(role)) throw new ConfigError(`unknown role ${JSON.stringify(role)}: use one of ${ROLES.join(', ')}`);
  const config = loadConfig();
  const service = await startService(config, { role, logger: loggerFor(config) });
  const { addresses, temporal } = service;
  const lines = service.url ? [`svc listening on ${service.url} (role ${role})`] : [`svc ${role} started`];
  if (service.url) {
    lines.push(
      `  OpenAPI:    ${service.url}/api/v1/openapi.json`,
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
  // The log lines of the start-up come first (logs are written in batches).
  service.deps.logger.flush();
  process.stdout.write(`${lines.join('\n')}\n`);
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(1); // a second Ctrl-C means "now"
    service.deps.logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
} catch (err) {
  if (err instanceof ConfigError || err instanceof EmbeddedPostgresError) {
    process.stderr.write(`svc: ${err.message}\n`);
  } else {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
}
