import { loadModule, parseSync } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { policedReferences, rewritePolicedSql } from '../../../../domain/ontology/sql/policed-references.ts';

// Where a query names a table its caller's security policies filter, and the query with each such
// name replaced by the derived table (the API test reads the rows: test/api/ontology/object-security.test.ts).

const SCHEMA = 'ontology_org_a';
beforeAll(() => loadModule());

const find = (text: string, policed = ['sales.Customer']) => policedReferences(parseSync(text), text, SCHEMA, policed);
const rewrite = (text: string) => {
  const found = find(text);
  if (!('references' in found)) throw new Error(found.message);
  return rewritePolicedSql(text, found.references, new Map([['sales.Customer', '(P)']]));
};

describe('policed references', () => {
  it('replaces every reference, however nested, keeping the query’s aliases; other tables stay', () => {
    expect(rewrite('SELECT "sales.Customer".name FROM "sales.Customer", "sales.Order" o').text).toBe(
      'SELECT "sales.Customer".name FROM (P) AS "sales.Customer", "sales.Order" o',
    );
    expect(
      rewrite(
        `WITH x AS (SELECT * FROM ${SCHEMA} . "sales.Customer" c) SELECT (SELECT 1 FROM "sales.Customer" AS d(a)) FROM x JOIN "sales.Customer" ON true`,
      ).text,
    ).toBe('WITH x AS (SELECT * FROM (P) c) SELECT (SELECT 1 FROM (P) AS d(a)) FROM x JOIN (P) AS "sales.Customer" ON true');
  });

  it('counts in characters where the parser counts bytes, and maps positions back to the caller’s text', () => {
    const text = 'SELECT \'é€😀\' AS x, nope FROM "sales.Customer" WHERE nope2 = 1';
    const { text: out, originalPosition } = rewrite(text);
    expect(out).toBe('SELECT \'é€😀\' AS x, nope FROM (P) AS "sales.Customer" WHERE nope2 = 1');
    expect(originalPosition(out.indexOf('nope2') + 1)).toBe(text.indexOf('nope2') + 1);
    expect(originalPosition(out.indexOf('nope,') + 1)).toBe(text.indexOf('nope,') + 1);
    expect(originalPosition(out.indexOf('(P)') + 2)).toBe(text.indexOf('"sales.Customer"') + 1);
  });

  it('refuses a name it cannot read back exactly; finds nothing of other schemas or unpoliced tables', () => {
    for (const text of [`SELECT 1 FROM ${SCHEMA}/**/."sales.Customer"`, 'SELECT 1 FROM U&"sales.Customer"']) {
      expect(find(text), text).toMatchObject({ errorName: 'RelationNotAllowed' });
    }
    expect(find('SELECT 1 FROM other."sales.Customer", "sales.Order"')).toEqual({ references: [] });
    expect(find('SELECT 1 FROM "sales.Customer"', [])).toEqual({ references: [] });
    // Unquoted names fold to lower case, as PostgreSQL reads them.
    expect(find('SELECT 1 FROM Ontology_Org_A.t', ['t'])).toMatchObject({ references: [{ relation: 't' }] });
  });
});
