import { type CreateStreamInput, STREAM_LIMITS, type StreamView } from '../../schemas/streams.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { companyForStreams, findStream, streamView } from './repository.ts';

/** Creates a stream of the company with its record schema; it feeds no object type until one is bound. */
export async function createStream(db: DbOrTrx, principal: Principal, namespace: string, input: CreateStreamInput): Promise<StreamView> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, null);
  const { count } = await db
    .selectFrom('data_streams')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('company_id', '=', company.id)
    .executeTakeFirstOrThrow();
  if (Number(count) >= STREAM_LIMITS.streamsPerCompany) {
    throw new DomainError('conflict', `A company holds at most ${STREAM_LIMITS.streamsPerCompany} streams.`, {
      details: { limit: STREAM_LIMITS.streamsPerCompany },
    });
  }
  await db
    .insertInto('data_streams')
    .values({
      id: newId('dst'),
      company_id: company.id,
      name: input.name,
      description: input.description,
      fields: JSON.stringify(input.fields),
      created_by: principal.account.id,
    })
    .execute()
    .catch((err: unknown) => {
      if ((err as { code?: string }).code !== '23505') throw err;
      throw new DomainError('stream_name_exists', `${namespace} already has a stream ${input.name}.`, { details: { stream: input.name } });
    });
  return streamView(db, await findStream(db, company, input.name));
}
