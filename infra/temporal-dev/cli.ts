// Command line, accepting both launch forms of @temporalio/testing (see USAGE):
//   temporal-dev server start-dev --port N --ip H --namespace NS ... [other flags ignored]
//   temporal-dev <port> [--dynamic-config-value K=V ...] [other args ignored]   (time-skipping test server)

import { StateFileError } from './common/errors.ts';
import { LOG_LEVELS, type LogLevel } from './common/log.ts';
import { indexedValueType } from './common/search-attributes.ts';
import { startTemporalDevServer, type TemporalDevServer } from './index.ts';

interface CliOptions {
  port: number;
  host: string;
  timeSkipping: boolean;
  namespaces: string[];
  searchAttributes: Record<string, number>;
  dbFilename?: string;
  httpPort?: number;
  uiPort?: number;
  logLevel?: LogLevel;
  dynamicConfig: Record<string, unknown>;
}

/** Asked for with --help: printed on stdout, exit status 0. */
class HelpRequested extends Error {}

const USAGE = `usage:
  temporal-dev server start-dev [options]   dev server (gRPC API, HTTP API, Web UI)
  temporal-dev <port> [--dynamic-config-value KEY=JSON ...]
                                            time-skipping test server (TestService, no UI)

start-dev options:
  -p, --port N                      gRPC port (default 7233; 0 picks a free one)
      --ip HOST                     address to bind (default 127.0.0.1)
  -n, --namespace NAME              namespace to create at startup (repeatable; "default" always exists)
      --search-attribute NAME=Type  custom search attribute (repeatable; Type: Keyword, Text, Int,
                                    Double, Bool, Datetime, KeywordList)
  -f, --db-filename FILE            keep all state in FILE across restarts (default: memory only)
      --http-port N                 serve the HTTP API on N (default: not served)
      --ui-port N                   Web UI port (default: port + 1000)
      --headless                    no Web UI
      --log-level LEVEL             what the server logs on stderr: debug, info, warn, error, never (default warn)
      --dynamic-config-value KEY=JSON
                                    dynamic config value (repeatable), e.g.
                                    frontend.enableUpdateWorkflowExecution=false or limit.blobSize.error=10240
  -h, --help                        this help
Other flags are accepted and ignored.`;

/** As Temporal's CLI: KEY=VALUE with a JSON value, e.g. limit.blobSize.error=1048576 or x="text". */
function setDynamicConfigValue(config: Record<string, unknown>, spec: string): void {
  const eq = spec.indexOf('=');
  if (eq < 0) throw new Error(`invalid dynamic config values: missing expected '=' in "${spec}"`);
  const key = spec.slice(0, eq);
  try {
    config[key] = JSON.parse(spec.slice(eq + 1));
  } catch (err) {
    throw new Error(`invalid dynamic config values: invalid JSON value for key "${key}": ${(err as Error).message}`);
  }
}

function parseArgs(argv: string[]): CliOptions {
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(USAGE);
  if (argv[0] !== undefined && /^\d+$/.test(argv[0])) {
    // The test server takes dynamic config values too (limits a test wants low); other args are ignored.
    const dynamicConfig: Record<string, unknown> = {};
    for (let i = 1; i < argv.length; i++) {
      if (argv[i] === '--dynamic-config-value' && argv[i + 1] !== undefined) setDynamicConfigValue(dynamicConfig, argv[++i]!);
      else if (argv[i]!.startsWith('--dynamic-config-value='))
        setDynamicConfigValue(dynamicConfig, argv[i]!.slice('--dynamic-config-value='.length));
    }
    return { port: Number(argv[0]), host: '127.0.0.1', timeSkipping: true, namespaces: ['default'], searchAttributes: {}, dynamicConfig };
  }
  if (argv[0] !== 'server' || argv[1] !== 'start-dev') throw new Error(USAGE);
  const options: CliOptions = {
    port: 7233,
    host: '127.0.0.1',
    timeSkipping: false,
    namespaces: ['default'],
    searchAttributes: {},
    dynamicConfig: {},
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
      case '--log-level': {
        const level = value();
        if (!(LOG_LEVELS as readonly string[]).includes(level))
          throw new Error(`invalid log level "${level}" (expected ${LOG_LEVELS.join(', ')})`);
        options.logLevel = level as LogLevel;
        break;
      }
      case '--dynamic-config-value':
        setDynamicConfigValue(options.dynamicConfig, value());
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
    if (err instanceof HelpRequested) {
      console.log(err.message);
      process.exit(0);
    }
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
