import type { Edit, ObjectChange } from './write-edits.ts';

// The one-line summaries of the app log's action records (action/<Action>, action/data.*).

/** The longest summary kept; a longer one is cut with an ellipsis. */
const SUMMARY_CHARACTERS = 240;

/** What a write did to one object. */
export const changeVerb = (change: ObjectChange) => (!change.before ? 'created' : !change.after ? 'deleted' : 'modified');

/** How many of the edits add or remove a link. */
export const countLinkEdits = (edits: readonly Pick<Edit, 'type'>[]) =>
  edits.filter((e) => e.type === 'addLink' || e.type === 'removeLink').length;

/** The summary part naming the link edits; none when there are none. */
export const linkEditsPart = (count: number) => (count > 0 ? [`${count} link edit${count === 1 ? '' : 's'}`] : []);

/** A summary within SUMMARY_CHARACTERS. */
export const summaryLine = (line: string) => (line.length > SUMMARY_CHARACTERS ? `${line.slice(0, SUMMARY_CHARACTERS - 1)}…` : line);
