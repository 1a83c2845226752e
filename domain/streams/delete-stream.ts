import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { bindingRows, companyForStreams, findStream } from './repository.ts';

/**
 * Deletes a stream with its records; refused while it is a data source of object types
 * (stream_in_use, `details.objectTypes`): remove those bindings first.
 */
export async function deleteStream(db: DbOrTrx, principal: Principal, namespace: string, name: string): Promise<void> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, name);
  // Locked: a binding made meanwhile waits for this delete, then finds no stream.
  const stream = await findStream(db, company, name, true);
  const bindings = await bindingRows(db).where('stream_id', '=', stream.id).execute();
  if (bindings.length) {
    const objectTypes = bindings.map((b) => b.object_type);
    throw new DomainError('stream_in_use', `${name} is a data source of ${objectTypes.join(', ')}: remove those bindings first.`, {
      details: { stream: name, objectTypes },
    });
  }
  // Its records go with it (ON DELETE CASCADE).
  await db.deleteFrom('data_streams').where('id', '=', stream.id).execute();
}
