import type { ScheduleDescription, ScheduleOptions, ScheduleUpdateOptions } from '@temporalio/client';
import type { SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { type RunLabels, runLabels } from '../workflows/contract.ts';

// svc's schedules carry labels (memo and search attributes) as its runs do: the schedule its own,
// its action those of the runs it starts, so the Web UI's schedule list and the runs name their
// company, app and kind. Schedules created before svc labelled them get the search attributes at
// the next reconcile (Temporal fixes a schedule's memo at create).

/** `options` with the schedule's labels and its runs' labels. */
export function labelSchedule(options: ScheduleOptions, schedule: RunLabels, runs: RunLabels): ScheduleOptions {
  const own = runLabels(schedule);
  const started = runLabels(runs);
  return {
    ...options,
    memo: own.memo,
    typedSearchAttributes: own.typedSearchAttributes,
    action: { ...options.action, memo: started.memo, typedSearchAttributes: started.typedSearchAttributes },
  } as ScheduleOptions;
}

type Attributes = SearchAttributePair[] | TypedSearchAttributes | undefined;

const pairsOf = (attributes: Attributes): SearchAttributePair[] =>
  attributes === undefined ? [] : Array.isArray(attributes) ? attributes : attributes.getAll();

/** Every pair of `wanted` is in `actual` with the same value. */
function carries(actual: Attributes, wanted: Attributes): boolean {
  const have = new Map(pairsOf(actual).map((p) => [p.key.name, p.value]));
  return pairsOf(wanted).every((p) => have.get(p.key.name) === p.value);
}

/** Whether the schedule in Temporal carries the labels of `options` (its own and its action's search attributes). */
export function hasLabels(description: ScheduleDescription, options: ScheduleOptions): boolean {
  const action = description.action as { typedSearchAttributes?: Attributes };
  return (
    carries(description.typedSearchAttributes, options.typedSearchAttributes) &&
    carries(action.typedSearchAttributes, (options.action as { typedSearchAttributes?: Attributes }).typedSearchAttributes)
  );
}

/** The update that gives an existing schedule the labels of `options`, its state and everything else kept. */
export function withLabels(previous: ScheduleUpdateOptions, options: ScheduleOptions): ScheduleUpdateOptions {
  return {
    ...previous,
    typedSearchAttributes: options.typedSearchAttributes,
    action: { ...previous.action, memo: options.action.memo, typedSearchAttributes: options.action.typedSearchAttributes },
  } as ScheduleUpdateOptions;
}
