// `@svc/temporal-dev/testing`: the one way tests (this package's conformance suite and the
// service's workflow tests) get a TestWorkflowEnvironment. By default it runs this package's server
// through the SDK's `existing-path` launcher (bin/temporal-dev); with SVC_TEMPORAL_TEST_SERVER=download
// it uses the official downloaded servers instead (needs internet), to run the same tests against
// real Temporal. Test-only: it needs @temporalio/testing.

import type { defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporalDevExecutable } from './index.ts';

export type TemporalEnvFlavour = 'local' | 'time-skipping';

export interface TemporalEnvOptions {
  /** Custom search attributes to register on the server (local flavour). */
  searchAttributes?: ReturnType<typeof defineSearchAttributeKey>[];
  /** More server arguments, e.g. `--dynamic-config-value limit.blobSize.error=10240` (the time-skipping server takes only these). */
  extraArgs?: string[];
}

export function usesDownloadedServer(): boolean {
  return process.env.SVC_TEMPORAL_TEST_SERVER === 'download';
}

export async function createTemporalEnv(flavour: TemporalEnvFlavour, options: TemporalEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  if (usesDownloadedServer()) {
    return flavour === 'local'
      ? TestWorkflowEnvironment.createLocal({ server: { searchAttributes: options.searchAttributes, extraArgs: options.extraArgs } })
      : TestWorkflowEnvironment.createTimeSkipping();
  }
  // The launcher runs the server's TypeScript with this same Node (the system one may be too old).
  process.env.TEMPORAL_DEV_NODE = process.execPath;
  const executable = { type: 'existing-path' as const, path: temporalDevExecutable };
  return flavour === 'local'
    ? TestWorkflowEnvironment.createLocal({
        server: { executable, searchAttributes: options.searchAttributes, extraArgs: options.extraArgs },
      })
    : TestWorkflowEnvironment.createTimeSkipping({ server: { executable, extraArgs: options.extraArgs } });
}
