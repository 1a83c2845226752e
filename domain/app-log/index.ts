// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { followEvents, type LogFollow } from './follow-events.ts';
export { listEvents } from './list-events.ts';
export { logScope } from './log-app.ts';
export { purgeExpiredEvents } from './purge-expired-events.ts';
export { admitEvents, recordEvents } from './record-events.ts';
export { setFeedbackStatus } from './set-feedback-status.ts';
export { summarizeLog } from './summarize-log.ts';
export { type LogRecord, writeLogRecords } from './write-log-record.ts';
