import type { ConnectionView, CreateConnectionInput } from '../../schemas/connectivity.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { companyForPipelines, connectionRows, connectionView, nameTaken } from './repository.ts';
import type { ConnectivitySettings } from './settings.ts';

/** The connection's fields split into what may be shown and what is sealed (never shown). */
function split(input: CreateConnectionInput): { settings: Record<string, unknown>; secret: Record<string, string> | null } {
  switch (input.kind) {
    case 'postgresql':
      return { settings: {}, secret: { connectionString: input.connectionString } };
    case 's3': {
      const { kind: _k, name: _n, secretAccessKey, ...settings } = input;
      return { settings, secret: secretAccessKey ? { secretAccessKey } : null };
    }
    case 'https':
      return { settings: { url: input.url }, secret: input.authorization ? { authorization: input.authorization } : null };
  }
}

/** Creates a data connection of the company; its secret is sealed with the connection's id bound in. */
export async function createConnection(
  db: DbOrTrx,
  settings: ConnectivitySettings,
  principal: Principal,
  namespace: string,
  input: CreateConnectionInput,
): Promise<ConnectionView> {
  const company = await companyForPipelines(db, principal, namespace);
  const id = newId('dcn');
  const { settings: shown, secret } = split(input);
  const sealed = secret ? settings.secrets.seal(JSON.stringify(secret), id) : null;
  await db
    .insertInto('data_connections')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      kind: input.kind,
      settings: JSON.stringify(shown),
      secret: sealed?.sealed ?? null,
      secret_key_id: sealed?.keyId ?? null,
      created_by: principal.account.id,
    })
    .execute()
    .catch((err: unknown) => nameTaken(err, input.name));
  return connectionView(await connectionRows(db).where('id', '=', id).executeTakeFirstOrThrow());
}
