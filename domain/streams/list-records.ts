import type { StreamRecordsPage } from '../../schemas/streams.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyForStreams, findStream } from './repository.ts';

/** The stream's kept records after a sequence number, oldest first. */
export async function listRecords(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  name: string,
  page: { after: number; pageSize: number },
): Promise<StreamRecordsPage> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, name);
  const stream = await findStream(db, company, name);
  const rows = await db
    .selectFrom('data_stream_records')
    .select(['seq', 'record', 'pushed_at'])
    .where('stream_id', '=', stream.id)
    .where('seq', '>', page.after)
    .orderBy('seq')
    .limit(page.pageSize)
    .execute();
  return {
    records: rows.map((r) => ({ sequence: Number(r.seq), record: r.record, pushedAt: r.pushed_at.toISOString() })),
    nextAfter: rows.length ? Number(rows.at(-1)!.seq) : null,
  };
}
