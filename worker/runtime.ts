import { DefaultLogger, Runtime } from '@temporalio/worker';

let installed = false;

/**
 * Once per process, before any connection: the SDK would otherwise stop every
 * worker on SIGINT/SIGTERM by itself, racing the service's ordered shutdown,
 * and log each state change at INFO.
 */
export function installTemporalRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN') });
}
