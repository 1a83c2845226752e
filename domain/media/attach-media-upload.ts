import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { setMediaProperty } from '../ontology/index.ts';
import { failMediaUpload } from './assemble-media-upload.ts';
import { branchOf } from './repository.ts';
import { mediaReferenceOf } from './uploads.ts';

/**
 * The last step of a session's assembly workflow: the assembled item goes into the property's
 * media set (main branch, path `uploads/<upload id>`), the object named at creation gets it as its
 * property's value through the one writer, as the account that completed the session, and the
 * session is COMPLETED with its parts dropped, in one transaction. An object deleted meanwhile
 * ends the session FAILED (object_not_found). Access was decided when the session was completed.
 */
export async function attachMediaUpload(
  deps: { db: Db; clock: Clock },
  uploadId: string,
  content: { sha256: string; size: number },
): Promise<'completed' | 'failed' | 'skipped'> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const upload = await trx
        .selectFrom('media_uploads as u')
        .innerJoin('object_types as t', 't.id', 'u.object_type_id')
        .innerJoin('ontologies as o', 'o.id', 't.ontology_id')
        .innerJoin('companies as c', 'c.id', 'o.company_id')
        .select(['u.id', 'u.state', 'u.media_set_id', 'u.primary_key', 'u.mime_type', 'u.property', 'u.completed_by'])
        .select(['t.id as object_type_id', 't.api_name', 'o.company_id', 'c.cell_id'])
        .where('u.id', '=', uploadId)
        .forUpdate('u')
        .executeTakeFirst();
      if (upload?.state !== 'COMPLETING') return 'skipped';
      const branch = await branchOf(trx, upload.media_set_id, {});
      const itemId = randomUUID();
      await trx
        .insertInto('media_items')
        .values({
          id: itemId,
          branch_id: branch.id,
          transaction_id: null,
          visible: true,
          path: `uploads/${upload.id}`,
          sha256: Buffer.from(content.sha256, 'hex'),
          size: content.size,
          mime_type: upload.mime_type,
          created_by: upload.completed_by,
        })
        .execute();
      if (upload.primary_key !== null) {
        const property = {
          companyId: upload.company_id,
          cellId: upload.cell_id,
          objectTypeId: upload.object_type_id,
          objectType: upload.api_name,
          property: upload.property,
        };
        const key = JSON.parse(upload.primary_key) as string | number;
        await setMediaProperty(trx, property, upload.completed_by, key, await mediaReferenceOf(trx, itemId));
      }
      await trx.deleteFrom('media_upload_parts').where('upload_id', '=', upload.id).execute();
      await trx
        .updateTable('media_uploads')
        .set({ state: 'COMPLETED', media_item_id: itemId, updated_at: deps.clock.now() })
        .where('id', '=', upload.id)
        .execute();
      return 'completed';
    });
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'object_not_found')) throw err;
    await failMediaUpload(deps, uploadId, 'object_not_found', err.message);
    return 'failed';
  }
}
