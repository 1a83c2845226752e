import { sql } from 'kysely';
import { formatPath, type Problem, reportedProblems } from '../../schemas/problems.ts';
import { type PushRecordsInput, type PushRecordsResult, STREAM_LIMITS, type StreamField } from '../../schemas/streams.ts';
import { writeLogRecords } from '../app-log/index.ts';
import { liveMapping, mapRows } from '../connectivity/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany, upsertObjects } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { recordProblems } from './check-records.ts';
import { bindingRows, companyForStreams, findStream } from './repository.ts';

const invalid = (problems: Problem[]) =>
  new DomainError('invalid_payload', problems[0]?.message ?? 'Records are not valid.', { details: reportedProblems(problems) });

/**
 * Pushes records into a stream, all or none, in the request's transaction: each is checked against
 * the stream's fields, stored with the next sequence numbers, and written into every bound object
 * type (upserted by primary key: the last record of a key wins) through the data layer's one
 * writer, so change triggers, subscriptions and the edits history see them as any other write.
 * The pusher hears every refusal, by the record's path. The stream's row is locked: pushes to one
 * stream take their sequence numbers in commit order.
 */
export async function pushRecords(
  { db, clock }: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  name: string,
  input: PushRecordsInput,
): Promise<PushRecordsResult> {
  const company = await companyForStreams(db, principal, 'stream.push', namespace, name);
  const stream = await findStream(db, company, name, true);
  const problems = recordProblems(stream.fields as StreamField[], input.records);
  if (problems.length) throw invalid(problems);

  const objectTypes: PushRecordsResult['objectTypes'] = [];
  const bindings = await bindingRows(db).where('stream_id', '=', stream.id).execute();
  const ontology = bindings.length ? await findOntologyOfCompany(db, company.id) : undefined;
  for (const binding of bindings) {
    const type = ontology && (await findObjectTypeRecord(db, ontology.id, binding.object_type));
    if (!type) {
      throw new DomainError(
        'object_type_not_found',
        `The stream ${name} feeds ${binding.object_type}, which no longer exists: remove that binding.`,
        {
          details: { stream: name, objectType: binding.object_type },
        },
      );
    }
    const mapping = liveMapping(type, binding.mapping);
    const mapped = [...mapRows(type, mapping, input.records).values()];
    try {
      const written = await upsertObjects(db, {
        companyId: company.id,
        objectType: type.apiName,
        operationId: newId('ope'),
        objects: mapped.map((m) => m.object),
      });
      objectTypes.push({ objectType: type.apiName, objectsWritten: written.objects.length });
    } catch (err) {
      throw refusalOfRecord(
        err,
        type.apiName,
        type.primaryKey,
        new Map(mapping),
        mapped.map((m) => m.row),
      );
    }
  }

  const { last_seq: last } = await db
    .updateTable('data_streams')
    .set({ last_seq: sql`last_seq + ${input.records.length}`, last_pushed_at: sql`now()` })
    .where('id', '=', stream.id)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const first = Number(last) - input.records.length + 1;
  await db
    .insertInto('data_stream_records')
    .values(
      input.records.map((record, i) => ({
        stream_id: stream.id,
        seq: first + i,
        record: JSON.stringify(record),
        pushed_by: principal.account.id,
      })),
    )
    .execute();
  // Only the newest records are kept: the bound is passed by at most one push's worth, dropped here.
  await db
    .deleteFrom('data_stream_records')
    .where('stream_id', '=', stream.id)
    .where('seq', '<=', Number(last) - STREAM_LIMITS.retainedRecords)
    .execute();
  const result = { accepted: input.records.length, firstSequence: first, lastSequence: Number(last), objectTypes };
  if (principal.kind === 'ticket') await recordAppPush(clock, db, principal, name, result);
  return result;
}

/** An app page's push in its app's log (action/data.stream), in the push's transaction: a key's push acts for no app. */
async function recordAppPush(
  clock: Clock,
  db: DbOrTrx,
  principal: Extract<Principal, { kind: 'ticket' }>,
  stream: string,
  result: PushRecordsResult,
): Promise<void> {
  const written = result.objectTypes.map((t) => `${t.objectType} ${t.objectsWritten}`).join(', ');
  await writeLogRecords(db, [
    {
      appId: principal.ticket.appId,
      at: clock.now(),
      kind: 'action',
      source: 'service',
      name: 'data.stream',
      accountId: principal.account.id,
      versionId: principal.ticket.versionId,
      channel: principal.ticket.channel,
      data: {
        stream,
        ...result,
        summary: `Push of ${result.accepted} record${result.accepted === 1 ? '' : 's'} to ${stream}${written ? `: ${written}` : ''}`,
      },
    },
  ]);
}

const EDIT_PATH = /^edits\[(\d+)\](?:\.properties\.([^.[]+)|\.primaryKey)?/;

/**
 * The writer's refusal of an edit as the pusher's: `edits[i].properties.p` names the record the
 * i-th object came from and the field mapped to p (the message says which object type refused it).
 */
function refusalOfRecord(err: unknown, objectType: string, primaryKey: string, mapping: Map<string, string>, rows: number[]): unknown {
  if (!(err instanceof DomainError) || err.code !== 'invalid_payload') return err;
  const problems = (err.details?.problems ?? []) as Problem[];
  const translated = problems.map((p) => {
    const m = EDIT_PATH.exec(p.path);
    const row = m ? rows[Number(m[1])] : undefined;
    if (row === undefined) return { ...p, message: `${objectType}: ${p.message}` };
    const property = m![2] ?? primaryKey;
    const field = mapping.get(property);
    return { ...p, path: formatPath('records', field ? [row, field] : [row]), message: `${objectType}: ${p.message}` };
  });
  return new DomainError('invalid_payload', translated[0]?.message ?? err.message, { details: { ...err.details, problems: translated } });
}
