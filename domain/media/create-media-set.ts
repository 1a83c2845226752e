import { randomUUID } from 'node:crypto';
import type { CreateMediaSetInput, MediaSetView } from '../../schemas/media.ts';
import { problem, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { companyNamed } from '../groups/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { schemaAdmits } from './media-types.ts';
import { ensureBranch, MAIN_BRANCH, setRows, setView } from './repository.ts';

/** Creates a media set of a company with its main branch; the company's developers are its Owners. */
export async function createMediaSet(db: DbOrTrx, principal: Principal, input: CreateMediaSetInput): Promise<MediaSetView> {
  const cellId = companyNamed(principal, input.organization);
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', cellId).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${cellId}.`, { details: { organization: cellId } });
  authorize(principal, 'media-set.create', { namespace: company.cell_id });
  const outside = input.allowedMimeTypes.flatMap((type, i) =>
    schemaAdmits(input.schema, type)
      ? []
      : [problem(`allowedMimeTypes[${i}]`, 'invalid_value', `the ${input.schema} schema does not admit ${type}`)],
  );
  if (outside.length > 0) throw new DomainError('invalid_payload', undefined, { details: reportedProblems(outside) });
  const id = randomUUID();
  await db
    .insertInto('media_sets')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      schema: input.schema,
      allowed_mime_types: [...new Set(input.allowedMimeTypes)],
      created_by: principal.account.id,
    })
    .execute();
  await ensureBranch(db, id, MAIN_BRANCH);
  return setView(db, await setRows(db).where('m.id', '=', id).executeTakeFirstOrThrow());
}
