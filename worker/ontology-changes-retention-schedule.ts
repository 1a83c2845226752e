import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { ONTOLOGY_CHANGES_RETENTION, TASK_QUEUE } from '../workflows/contract.ts';

/** Trims ontology changes every hour. */
export const ontologyChangesRetentionSchedule: ScheduleOptions = {
  scheduleId: ONTOLOGY_CHANGES_RETENTION.scheduleId,
  spec: { intervals: [{ every: '1 hour' }] },
  action: {
    type: 'startWorkflow',
    workflowType: 'ontologyChangesRetention',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: ONTOLOGY_CHANGES_RETENTION.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
};
