// The operator's calls on a run's pending activities: PauseActivity, UnpauseActivity, ResetActivity
// and UpdateActivityOptions, with the frontend's request checks (history/activity-control.ts holds
// the option rules they share with standalone activities).
import { invalidArgument, notFound } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { protoToMs } from '../common/time.ts';
import { optionsUpdatePaths, scheduledOptions, updateOptions } from '../history/activity-control.ts';
import type { PendingActivity } from '../history/activity-tasks.ts';
import type { Execution } from '../history/workflow-execution.ts';
import type { ServerState } from '../namespace/registry.ts';
import type { Handler } from './grpc-server.ts';

const ACTIVITY_NOT_FOUND = "Can't find pending activity with such ID. Invalid activityID or activity already completed";

export function activityControlHandlers(server: ServerState): Record<string, Handler> {
  /** The open run and its targeted pending activities, after the frontend's request checks. */
  const resolve = (req: Msg, allField?: string): { exec: Execution; targets: PendingActivity[] } => {
    if (!req.execution?.workflowId) throw invalidArgument('WorkflowId is not set on request.');
    const all = allField !== undefined && req[allField] !== undefined;
    if (req.id === undefined && req.type === undefined && !all) {
      throw invalidArgument('Either Activity.Id or Activity.Type should be set on request.');
    }
    const exec = server.namespace(req.namespace).get(req.execution);
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    const pending = [...exec.activities.values()];
    const targets =
      req.id !== undefined
        ? pending.filter((a) => a.activityId === req.id)
        : req.type !== undefined
          ? pending.filter((a) => a.attrs.activityType?.name === req.type)
          : pending;
    if (targets.length === 0) throw notFound(ACTIVITY_NOT_FOUND);
    return { exec, targets };
  };

  return {
    PauseActivity: (req) => {
      const { targets } = resolve(req);
      const info = {
        pauseTime: server.clock.now(),
        identity: req.identity ?? '',
        reason: req.reason ?? '',
        requestId: req.requestId ?? '',
      };
      for (const a of targets) a.pause(info);
      return {};
    },
    UnpauseActivity: (req) => {
      const { targets } = resolve(req, 'unpauseAll');
      for (const a of targets) a.unpause(Boolean(req.resetAttempts), Boolean(req.resetHeartbeat), protoToMs(req.jitter) ?? 0);
      return {};
    },
    ResetActivity: (req) => {
      const { exec, targets } = resolve(req, 'matchAll');
      for (const a of targets) {
        const original = req.restoreOriginalOptions ? originalOptions(exec, a) : undefined;
        a.resetAttempts(Boolean(req.resetHeartbeat), Boolean(req.keepPaused), protoToMs(req.jitter) ?? 0, original);
      }
      return {};
    },
    UpdateActivityOptions: (req) => {
      const paths = optionsUpdatePaths(req);
      const { exec, targets } = resolve(req, 'matchAll');
      return updateOptions(targets, req, paths, (a) => originalOptions(exec, a));
    },
  };
}

/** The options of the ActivityTaskScheduled event, for restoreOriginal(Options). */
function originalOptions(exec: Execution, a: PendingActivity): Msg {
  return scheduledOptions(exec.history.events[a.scheduledEventId - 1]?.activityTaskScheduledEventAttributes ?? {});
}
