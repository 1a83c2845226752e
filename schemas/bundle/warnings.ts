// Deploy warnings: never blocking, returned next to the result (spec "Rules for B3").
import { durationSeconds } from '../manifest/duration.ts';
import { type Limits, limitsAboveDefault } from '../manifest/limits.ts';
import type { Workflow } from '../manifest/workflow.ts';
import { formatPath } from '../problems.ts';
import type { FileAnalysis } from './analyze.ts';

export type Warning = { path?: string; code: string; message: string };

const HOUR_SECONDS = 3600;

export function limitWarnings(limits: Limits | undefined): Warning[] {
  if (limits === undefined) return [];
  return limitsAboveDefault(limits).map(({ key, value, defaultValue }) => ({
    path: formatPath('manifest', ['limits', key]),
    code: 'limit_above_default',
    message: `${key} is ${value}, above its default ${defaultValue}`,
  }));
}

export function scheduleWarnings(workflow: Workflow | undefined): Warning[] {
  const every = workflow?.trigger?.schedule?.every;
  const seconds = every === undefined ? undefined : durationSeconds(every);
  if (seconds === undefined || seconds > HOUR_SECONDS) return [];
  return [
    {
      path: formatPath('manifest', ['workflow', 'trigger', 'schedule', 'every']),
      code: 'schedule_frequent',
      message: `the workflow runs every ${every}; at most hourly schedules use compute minutes quickly, consider a change trigger`,
    },
  ];
}

export function pollingWarnings(analyses: readonly FileAnalysis[]): Warning[] {
  return analyses
    .filter(({ polls }) => polls)
    .map(({ file }) => ({
      path: formatPath('files', [file.index, 'content']),
      code: 'polling_fetch',
      message: `${file.path} polls with a timer and fetches data; prefer a subscription or auto-refresh to save requests and compute`,
    }));
}
