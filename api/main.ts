import { ConfigError, loadConfig } from './config.ts';
import { EmbeddedPostgresError } from './db/embedded-postgres.ts';
import { startService } from './server.ts';

// `npm start`: the service on the embedded defaults unless the environment says otherwise.

try {
  const config = loadConfig();
  const service = await startService(config);
  const { addresses } = service;
  process.stdout.write(
    `svc listening on ${service.url}\n` +
      `  OpenAPI:    ${service.url}/api/v1/openapi.json\n` +
      `  base:       ${addresses.baseUrl}\n  production: ${addresses.productionBase}\n  developer:  ${addresses.developerBase}\n` +
      `  temporal:   ${service.temporal.address}${service.temporal.embedded ? ' (in-memory server, local use only)' : ''}\n`,
  );
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
