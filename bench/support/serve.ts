// A server in a process of its own, so the load generator does not share its event loop:
// `node bench/support/serve.ts bare` (Koa answering a small JSON body) or
// `node bench/support/serve.ts service [api|all] [env as JSON] [ticket]` (the real service, as
// bench/support/service.ts starts it, with these settings added; `ticket` opens an app as the
// developer for its ticket). Prints one JSON line ({ url, developerKey, operatorKey, ticket? }) when ready and stops
// when its standard input closes.
import { createInterface } from 'node:readline';
import Koa from 'koa';
import { createLogger } from '../../infra/log/create-logger.ts';
import type { Role } from '../../service.ts';
import { benchTicket, startBenchService } from './service.ts';

const [kind = 'bare', role = 'api', env = '{}', extra] = process.argv.slice(2);
let stop: () => Promise<void>;
if (kind === 'bare') {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { ok: true, data: { hello: 'world' } };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  stop = () => new Promise((resolve) => server.close(() => resolve()));
} else {
  // Every request logged as `npm start` logs it (JSON, asynchronously), to /dev/null.
  const logger = createLogger({ level: 'info', format: 'json', dest: '/dev/null' });
  const bench = await startBenchService({ role: role as Role, logger, env: JSON.parse(env) });
  const ticket = extra === 'ticket' ? await benchTicket(bench) : undefined;
  process.stdout.write(
    `${JSON.stringify({ url: bench.svc.url, developerKey: bench.developerKey, operatorKey: bench.operatorKey, ticket })}\n`,
  );
  stop = bench.stop;
}
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line !== 'memory') return;
    globalThis.gc?.();
    process.stdout.write(`${JSON.stringify(process.memoryUsage())}\n`);
  })
  .on('close', () => stop().then(() => process.exit(0)));
