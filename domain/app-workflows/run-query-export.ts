import type { QueryExport } from '../../schemas/manifest/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany, objectPage } from '../ontology/index.ts';
import { exportQuery } from './export-query.ts';

// A `use` step over a `query` export: the export's where/select/sort/limit as a search of its
// semantic type in the company's ontology (domain/ontology/search-objects.ts), with the step's
// input as the export's `input` (domain/app-workflows/export-query.ts, shared with the export's API).

/** Runs the export in the company's ontology; rows are the objects' properties. */
export async function runQueryExport(db: DbOrTrx, companyId: string, query: QueryExport, input: Record<string, unknown>) {
  for (const [name, parameter] of Object.entries(query.input)) {
    if (parameter.required && (input[name] === undefined || input[name] === null))
      throw new DomainError('invalid_payload', `The export ${query.name} needs input ${name}.`, { details: { input: name } });
  }
  const ontology = await findOntologyOfCompany(db, companyId);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, query.type));
  if (!ontology || !type) throw new DomainError('object_type_not_found', `The company's ontology has no object type ${query.type}.`);
  const page = await objectPage(db, ontology, type, await exportQuery(query, input));
  return page.data.map(({ __apiName, __rid, __rev, __primaryKey, ...properties }) => properties);
}
