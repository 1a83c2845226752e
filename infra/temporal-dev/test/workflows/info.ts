// Workflows of the workflow-info checks in test/describe.test.ts: lineage and build ids as the SDK reports them.
import * as wf from '@temporalio/workflow';

export interface Lineage {
  root?: { workflowId: string; runId: string };
  parent?: string;
  originalExecutionRunId: string;
  runId: string;
}

function lineageOf(info: wf.WorkflowInfo): Lineage {
  return {
    root: info.root && { workflowId: info.root.workflowId, runId: info.root.runId },
    parent: info.parent?.workflowId,
    originalExecutionRunId: info.originalExecutionRunId,
    runId: info.runId,
  };
}

/** Its own lineage and, unless it is the child, that of a child of the same type. */
export async function lineage(isChild = false): Promise<Lineage[]> {
  const own = lineageOf(wf.workflowInfo());
  if (isChild) return [own];
  const child = await wf.executeChild(lineage, { args: [true], workflowId: `${wf.workflowInfo().workflowId}-child` });
  return [own, ...child];
}

export const buildIdQuery = wf.defineQuery<string | undefined>('buildId');
export const goOnSignal = wf.defineSignal('goOn');

/** Answers which build id runs its current task; waits for "goOn" (a new task) before ending. */
export async function buildIdProbe(): Promise<void> {
  let goOn = false;
  wf.setHandler(buildIdQuery, () => wf.workflowInfo().currentBuildId);
  wf.setHandler(goOnSignal, () => {
    goOn = true;
  });
  await wf.condition(() => goOn);
  await wf.condition(() => false);
}
