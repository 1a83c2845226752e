import type { Channel, ReleaseAction } from '../db/index.ts';

// A version's update status is never stored: it follows from the channel
// pointers and the release records (spec "App version update status").

export type UpdateStatus = 'untested' | 'testing' | 'tested' | 'live' | 'superseded' | 'rolled_back';

export interface ReleaseFact {
  channel: Channel;
  action: ReleaseAction;
  fromVersionId: string | null;
  toVersionId: string;
  /** Order of the records within the app. */
  seq: number;
}

export interface Pointers {
  testVersionId: string | null;
  productionVersionId: string | null;
}

export function versionStatus(versionId: string, pointers: Pointers, records: readonly ReleaseFact[]): UpdateStatus {
  if (pointers.productionVersionId === versionId) return 'live';
  // The last production move away from this version says how it went offline.
  let left: ReleaseFact | undefined;
  for (const r of records) if (r.channel === 'production' && r.fromVersionId === versionId && (!left || r.seq > left.seq)) left = r;
  if (left) return left.action === 'rollback' ? 'rolled_back' : 'superseded';
  if (pointers.testVersionId === versionId) return 'testing';
  return wasTested(versionId, records) ? 'tested' : 'untested';
}

/** Whether the version has ever been in the test channel. */
export function wasTested(versionId: string, records: readonly ReleaseFact[]): boolean {
  return records.some((r) => r.channel === 'test' && r.toVersionId === versionId);
}
