// Command line, accepting both launch forms of @temporalio/testing:
//   temporal-dev server start-dev --port N --ip H --namespace NS [--search-attribute k=Type]
//     [--db-filename F] [--http-port N] [--ui-port N | --headless]
//     [--dynamic-config-value limit.KEY=N] [other flags ignored]
//   temporal-dev <port> [other args ignored]      (time-skipping test server)

import { StateFileError } from './errors.ts';
import { startTemporalDevServer, type TemporalDevServer } from './index.ts';
import { applyDynamicConfig, type Limits } from './limits.ts';
import { indexedValueType } from './search-attributes.ts';

interface CliOptions {
  port: number;
  host: string;
  timeSkipping: boolean;
  namespaces: string[];
  searchAttributes: Record<string, number>;
  dbFilename?: string;
  httpPort?: number;
  uiPort?: number;
  limits: Partial<Limits>;
}

const USAGE = `usage:
  temporal-dev server start-dev [--port 7233] [--ip 127.0.0.1] [--namespace NAME]... [--search-attribute NAME=Type]...
                                [--db-filename FILE]   keep state in FILE across restarts (default: memory only)
                                [--http-port N] [--ui-port N (default: port + 1000) | --headless]
                                [--dynamic-config-value limit.blobSize.error=N]...   Temporal's size limits (limits.ts)
  temporal-dev <port>            time-skipping test server`;

function parseArgs(argv: string[]): CliOptions {
  if (argv[0] !== undefined && /^\d+$/.test(argv[0])) {
    return { port: Number(argv[0]), host: '127.0.0.1', timeSkipping: true, namespaces: ['default'], searchAttributes: {}, limits: {} };
  }
  if (argv[0] !== 'server' || argv[1] !== 'start-dev') throw new Error(USAGE);
  const options: CliOptions = {
    port: 7233,
    host: '127.0.0.1',
    timeSkipping: false,
    namespaces: ['default'],
    searchAttributes: {},
    limits: {},
  };
  const rest = argv.slice(2);
  let headless = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const [flag, inline] =
      arg.includes('=') && arg.startsWith('--') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    // Flags we ignore may or may not take a value; a following non-flag argument is its value.
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = rest[i + 1];
      if (next === undefined || next.startsWith('-')) throw new Error(`${flag} needs a value\n${USAGE}`);
      i++;
      return next;
    };
    switch (flag) {
      case '--port':
      case '-p':
        options.port = Number(value());
        break;
      case '--ip':
        options.host = value();
        break;
      case '--http-port':
        options.httpPort = Number(value());
        break;
      case '--ui-port':
        options.uiPort = Number(value());
        break;
      case '--headless':
        headless = true;
        break;
      case '--namespace':
      case '-n': {
        const namespace = value();
        if (!options.namespaces.includes(namespace)) options.namespaces.push(namespace);
        break;
      }
      case '--db-filename':
      case '-f':
        options.dbFilename = value();
        break;
      case '--search-attribute': {
        const spec = value();
        const [name, type] = spec.split('=');
        const t = type ? indexedValueType(type) : undefined;
        if (!name || t === undefined)
          throw new Error(`bad --search-attribute ${spec} (expected NAME=Keyword|Text|Int|Double|Bool|Datetime|KeywordList)`);
        options.searchAttributes[name] = t;
        break;
      }
      case '--dynamic-config-value':
        applyDynamicConfig(options.limits, value());
        break;
      default:
        if (inline === undefined && rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('-')) i++;
    }
  }
  // Temporal's dev server puts the UI 1000 above the gRPC port; a random gRPC port gets a random UI port.
  if (headless) options.uiPort = undefined;
  else options.uiPort ??= options.port === 0 ? 0 : options.port + 1000;
  for (const port of [options.port, options.httpPort, options.uiPort]) {
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new Error(`bad port\n${USAGE}`);
  }
  return options;
}

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  let server: TemporalDevServer;
  try {
    server = await startTemporalDevServer(options);
  } catch (err) {
    // A state file we cannot use (another schema version, in use...) is a message, not a stack trace.
    if (!(err instanceof StateFileError)) throw err;
    console.error(`temporal-dev: ${err.message}`);
    process.exit(1);
  }
  const where = options.dbFilename ? ` (state in ${options.dbFilename})` : '';
  console.error(`temporal-dev ${options.timeSkipping ? 'time-skipping test server' : 'dev server'} listening on ${server.address}${where}`);
  if (server.httpUrl) console.error(`temporal-dev HTTP API on ${server.httpUrl}`);
  if (server.uiUrl) console.error(`temporal-dev Web UI on ${server.uiUrl}`);
  const stop = () => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A launcher that dies without killing us (e.g. a crashed test run) must not leak the server.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

await main();
