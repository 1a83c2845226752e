import { Command, CommanderError, Option } from 'commander';
import versionFile from '../version.json' with { type: 'json' };
import { registerAdmin } from './commands/admin/index.ts';
import { registerApps } from './commands/apps/index.ts';
import { registerDeploy } from './commands/deploy/index.ts';
import { registerInit } from './commands/init/index.ts';
import { registerKeys } from './commands/keys/index.ts';
import { registerLogin } from './commands/login/index.ts';
import { registerLogout } from './commands/logout/index.ts';
import { registerLogs } from './commands/logs/index.ts';
import { registerMembers } from './commands/members/index.ts';
import { registerOpen } from './commands/open/index.ts';
import { registerPublish } from './commands/publish/index.ts';
import { registerRollback } from './commands/rollback/index.ts';
import { registerRuns } from './commands/runs/index.ts';
import { registerShare } from './commands/share/index.ts';
import { registerStatus } from './commands/status/index.ts';
import { registerTest } from './commands/test/index.ts';
import { registerWhoami } from './commands/whoami/index.ts';
import { CliError, EXIT, type ExitCode } from './util/errors.ts';
import { Output } from './util/output.ts';

/** The single version file of API, CLI and SDK (spec "Versioning" 2). */
const VERSION = versionFile.version;

/** The whole command tree; help is generated from it. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Build, test and publish svc apps from the terminal.')
    .version(VERSION, '-v, --version', 'print the version')
    .addOption(new Option('--base-url <url>', 'the service (default: SVC_BASE_URL, the stored login, http://127.0.0.1:8080)'))
    .addOption(new Option('--api-key <key>', 'a developer key (default: SVC_API_KEY, then the stored login)'))
    .option('--json', 'machine-readable output on stdout')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of [
    registerLogin,
    registerLogout,
    registerWhoami,
    registerKeys,
    registerInit,
    registerDeploy,
    registerTest,
    registerPublish,
    registerRollback,
    registerStatus,
    registerApps,
    registerOpen,
    registerShare,
    registerLogs,
    registerMembers,
    registerRuns,
    registerAdmin,
  ]) {
    register(program);
  }
  // Subcommands, at every depth (`admin companies list`), stop on usage errors too instead of exiting the process themselves.
  const override = (command: Command): void => {
    for (const sub of command.commands) {
      sub.exitOverride();
      override(sub);
    }
  };
  override(program);
  return program;
}

/** Runs the CLI and answers the exit code: 0 success, 1 failure, 2 parameter or validation error, 3 not logged in. */
export async function run(argv: readonly string[]): Promise<ExitCode> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end the same way; usage errors were already printed by commander.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const out = new Output(program.opts().json === true);
    if (error instanceof CliError) {
      out.failure(error);
      return error.exitCode;
    }
    out.failure(new CliError(error instanceof Error ? error.message : String(error), EXIT.failure));
    return EXIT.failure;
  }
}
