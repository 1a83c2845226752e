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

/**
 * The version a rollback of the live version returns to: what production showed before the live
 * version was last published over it. None when the live version was the first one published, or
 * is live only through a rollback (nothing older was published before it).
 */
export function rollbackTarget(pointers: Pointers, records: readonly ReleaseFact[]): string | null {
  const live = pointers.productionVersionId;
  let last: ReleaseFact | undefined;
  for (const r of records) {
    if (r.channel === 'production' && r.action === 'publish' && r.toVersionId === live && (!last || r.seq > last.seq)) last = r;
  }
  return last?.fromVersionId ?? null;
}

/**
 * The versions whose `_v/` files a channel's page tree serves (the spec takes a superseded version
 * offline): the one the channel points at and, on production, its rollback target, so that pages
 * opened before the last publish keep loading their files. Every other version is offline until a
 * channel points at it again; its files stay stored.
 */
export function onlineVersionIds(channel: Channel, pointers: Pointers, records: readonly ReleaseFact[]): string[] {
  if (channel === 'test') return pointers.testVersionId ? [pointers.testVersionId] : [];
  if (!pointers.productionVersionId) return [];
  const target = rollbackTarget(pointers, records);
  return target ? [pointers.productionVersionId, target] : [pointers.productionVersionId];
}
