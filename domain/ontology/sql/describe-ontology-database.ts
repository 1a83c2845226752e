import type { OntologyDatabase } from '../../../schemas/ontology-sql.ts';
import { SQL_MAX_ROWS } from '../../../schemas/ontology-sql.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { Clock, OntologySqlSettings } from '../../deps.ts';
import type { Principal } from '../../principal.ts';
import { openOntology } from '../data-access.ts';
import { columnTypeOf, REV, UPDATED_AT } from '../object-tables.ts';
import { sqlReadable, sqlSettings } from './execute-ontology-sql.ts';

/** GET /api/v1/ontologies/{ns}/database: the SQL surface as the caller sees it (its readable object types as tables). */
export async function describeOntologyDatabase(
  deps: { db: DbOrTrx; clock: Clock; ontologySql?: OntologySqlSettings | undefined },
  principal: Principal,
  ontology: string,
): Promise<OntologyDatabase> {
  const settings = sqlSettings(deps);
  const open = await openOntology(deps, principal, ontology);
  return {
    ontology: open.ontology.cellId,
    schema: open.ontology.schemaName,
    dialect: 'postgresql',
    tables: open.types
      .filter((t) => sqlReadable(open, t))
      .map((t) => ({
        name: t.apiName,
        objectTypeRid: t.rid,
        primaryKey: t.primaryKey,
        columns: [
          ...Object.entries(t.properties).map(([name, p]) => ({ name, type: columnTypeOf(p.dataType), dataType: p.dataType.type })),
          { name: REV, type: 'bigint', dataType: 'system' },
          { name: UPDATED_AT, type: 'timestamptz', dataType: 'system' },
        ],
      })),
    limits: { maxRows: SQL_MAX_ROWS, statementTimeoutMs: settings.statementTimeoutMs, statements: 1 },
  };
}
