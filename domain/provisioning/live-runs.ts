// The port through which the status looks at runs while they go: the Temporal adapter answers
// with the workflow's query (current step) and its pending activity (attempt, last failure).

export interface LiveRun {
  workflowId: string;
  runId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, TERMINATED, … */
  status: string;
  currentStep: string | null;
  /** The step Temporal is retrying or running now, with its attempt and the last failure. */
  pendingStep: { name: string; attempt: number; lastFailure: string | null } | null;
}

export interface LiveRunObserver {
  /** Undefined when the run is unknown to Temporal or Temporal cannot be reached. */
  observe(workflowId: string, runId: string): Promise<LiveRun | undefined>;
}
