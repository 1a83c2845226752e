import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { issuesToProblems, type Problem, problem, reportedProblems } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';

/** Spec limits: at most 1000 people per import. */
export const MAX_IMPORT = 1000;

export const ImportPerson = z.strictObject({
  email: z.email().max(254),
  name: z.string().trim().min(1).max(120).optional(),
  externalId: z.string().trim().min(1).max(200).optional(),
});
export type ImportPerson = z.output<typeof ImportPerson>;

/** CSV header names, matched case-insensitively (a Map: a header `constructor` names no column). */
const CSV_COLUMNS = new Map<string, keyof ImportPerson>([
  ['email', 'email'],
  ['name', 'name'],
  ['externalid', 'externalId'],
  ['external_id', 'externalId'],
]);

/**
 * The people of an import: a JSON array of `{email, name?, externalId?}` or CSV text with a header
 * naming `email` and optionally `name` and `externalId` (quoted fields, a BOM, CRLF; csv-parse
 * reads it in one linear pass). Every problem is reported with its path; more than 1000 people are
 * refused as a whole.
 */
export function readMemberList(members: unknown[] | string): ImportPerson[] {
  const rows = typeof members === 'string' ? readCsv(members) : members;
  if (rows.length > MAX_IMPORT) {
    throw new DomainError('invalid_payload', `An import holds at most ${MAX_IMPORT} people; this one has ${rows.length}.`, {
      details: { problems: [problem('members', 'too_big', `at most ${MAX_IMPORT} people`)], count: rows.length, limit: MAX_IMPORT },
    });
  }
  const people: ImportPerson[] = [];
  const problems: Problem[] = [];
  rows.forEach((row, i) => {
    const parsed = ImportPerson.safeParse(row);
    if (parsed.success) people.push({ ...parsed.data, email: parsed.data.email.toLowerCase() });
    else problems.push(...issuesToProblems(parsed.error.issues, `members.${i}`));
  });
  if (problems.length > 0) throw new DomainError('invalid_payload', undefined, { details: reportedProblems(problems) });
  return people;
}

function readCsv(text: string): Record<string, string>[] {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      // One past the limit is enough to know it is too many.
      to: MAX_IMPORT + 2,
    });
  } catch (err) {
    throw new DomainError('invalid_payload', `The CSV cannot be read: ${(err as Error).message}`, {
      details: { problems: [problem('members', 'invalid_csv', (err as Error).message)] },
    });
  }
  const [header, ...body] = records;
  if (!header)
    throw new DomainError('invalid_payload', 'The CSV is empty.', { details: { problems: [problem('members', 'invalid_csv', 'empty')] } });
  const fields = header.map((h) => CSV_COLUMNS.get(h.toLowerCase()));
  const problems = header.flatMap((h, i) =>
    fields[i] === undefined ? [problem(`members.header.${h}`, 'unrecognized_keys', `Unknown column "${h}" (email, name, externalId)`)] : [],
  );
  if (!fields.includes('email')) problems.push(problem('members.header', 'missing_column', 'the header must name an email column'));
  if (problems.length > 0) throw new DomainError('invalid_payload', undefined, { details: reportedProblems(problems) });
  return body.map((cells) => {
    const row: Partial<Record<keyof ImportPerson, string>> = {};
    fields.forEach((field, i) => {
      const value = cells[i];
      // An empty optional cell is an absent value.
      if (value !== undefined && value !== '') row[field!] = value;
    });
    return row;
  });
}
