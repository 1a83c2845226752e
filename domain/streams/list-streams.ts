import type { StreamView } from '../../schemas/streams.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { companyForStreams, companyStreams, findStream, streamView, streamViews } from './repository.ts';

/** The company's streams by name, each with its bindings. */
export async function listStreams(db: DbOrTrx, principal: Principal, namespace: string): Promise<StreamView[]> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, null);
  return streamViews(db, await companyStreams(db, company.id).execute());
}

/** One stream with its bindings. */
export async function getStream(db: DbOrTrx, principal: Principal, namespace: string, name: string): Promise<StreamView> {
  const company = await companyForStreams(db, principal, 'stream.manage', namespace, name);
  return streamView(db, await findStream(db, company, name));
}
