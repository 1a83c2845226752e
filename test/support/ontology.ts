import type { Db } from '../../domain/db/database.ts';
import { systemClock } from '../../domain/deps.ts';
import { defineObjectTypes } from '../../domain/ontology/define-object-types.ts';
import type { Principal } from '../../domain/principal.ts';
import { newId } from '../../domain/security/random.ts';
import type { DefineTypesRequest } from '../../schemas/ontology.ts';

// A company and a developer acting in it, straight in the database, for domain tests of the data layer.

export interface OntologyFixture {
  companyId: string;
  cellId: string;
  developer: Principal;
}

export async function insertCompanyWithDeveloper(db: Db, cellId: string): Promise<OntologyFixture> {
  const companyId = newId('org');
  const accountId = newId('acc');
  await db.insertInto('companies').values({ id: companyId, cell_id: cellId, name: cellId }).execute();
  await db
    .insertInto('accounts')
    .values({
      id: accountId,
      username: `dev-${cellId}`,
      email: `dev@${cellId}.example`,
      password_hash: null,
      status: 'active',
      locked_until: null,
    })
    .execute();
  await db.insertInto('licenses').values({ account_id: accountId, company_id: companyId, role: 'developer' }).execute();
  const developer: Principal = {
    kind: 'key',
    account: { id: accountId, username: `dev-${cellId}`, email: `dev@${cellId}.example`, platformStaff: false },
    company: { id: companyId, cellId, name: cellId },
    role: 'developer',
    key: { id: newId('key'), displayPrefix: 'svc-dk-test' },
  };
  return { companyId, cellId, developer };
}

/** Defines types as the fixture's developer, in a transaction of its own. */
export function define(db: Db, f: OntologyFixture, request: DefineTypesRequest) {
  return db.transaction().execute((trx) => defineObjectTypes({ db: trx, clock: systemClock }, f.developer, f.cellId, request));
}

/** Two linked types covering every property type. */
export const SALES: DefineTypesRequest = {
  types: [
    {
      apiName: 'sales.Customer',
      primaryKey: 'id',
      titleProperty: 'name',
      properties: { id: { dataType: { type: 'string' } }, name: { dataType: { type: 'string' } }, tier: { dataType: { type: 'integer' } } },
    },
    {
      apiName: 'sales.Order',
      primaryKey: 'number',
      properties: {
        number: { dataType: { type: 'long' } },
        amount: { dataType: { type: 'double' } },
        paid: { dataType: { type: 'boolean' } },
        placed: { dataType: { type: 'date' } },
        at: { dataType: { type: 'timestamp' } },
        tags: { dataType: { type: 'array', subType: { type: 'string' } } },
        address: { dataType: { type: 'struct', structFieldTypes: [{ apiName: 'city', dataType: { type: 'string' } }] } },
        note: { dataType: { type: 'string' } },
      },
    },
  ],
  linkTypes: [
    {
      apiName: 'order-customer',
      source: { objectType: 'sales.Order', linkApiName: 'customer', cardinality: 'ONE' },
      target: { objectType: 'sales.Customer', linkApiName: 'orders', cardinality: 'MANY' },
    },
  ],
};
