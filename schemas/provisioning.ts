import { z } from 'zod';
import { CellId } from './identity.ts';

// The company initialization request (spec: "Company initialization request") and the part routes' body. Every field is
// metadata; the service's guard additionally refuses anything that looks like a credential.

/** Lower-case words joined by hyphens: it names profiles (`<companyKey>-ceo`) and their folders. */
export const CompanyKey = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'lowercase letters and digits, words joined by -')
  .max(40);

/** An absolute, normalized POSIX path: no `.` or `..` segment, no empty segment, not the filesystem root. */
export const RootPath = z
  .string()
  .max(1024)
  .regex(/^(?:\/[^/\0]+)+$/, 'an absolute path such as /srv/companies/acme')
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), 'must not contain . or .. segments');

export const CloudTarget = z.strictObject({
  /** The cloud CLI profile whose credentials the worker's standard credential chain uses. */
  profile: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a profile name (letters, digits, . _ -)'),
  accountId: z.string().regex(/^\d{12}$/, 'twelve digits'),
  region: z.string().regex(/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/, 'a region such as eu-central-1'),
  instanceName: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._ -]{0,127}$/, 'up to 128 letters, digits, spaces, . _ -'),
});

export const InitializeCompanyRequest = z
  .strictObject({
    nameEn: z.string().trim().min(1).max(120),
    nameZh: z.string().trim().min(1).max(120),
    companyKey: CompanyKey,
    cellId: CellId,
    rootPath: RootPath,
    cloud: CloudTarget,
    apply: z
      .enum(['move'])
      .optional()
      .describe(
        'How to apply a companyKey or rootPath that differs from the stored one: "move" moves the company tree and renames the agent profiles. ' +
          'Without it such a change is refused (409 conflict, details.changes) and nothing changes. A changed cloud target is refused either way.',
      ),
  })
  .meta({ id: 'InitializeCompanyRequest' });
export type InitializeCompanyRequest = z.output<typeof InitializeCompanyRequest>;

/**
 * The body of the part routes (cloud-instance, folders, agent-profiles): the spec shows none, and a
 * part takes everything from the stored initialization, so it has no fields. No body or `{}`;
 * anything else is refused (malformed JSON, another type, any field with its path), so a call
 * that meant something else never starts a run.
 */
export const ProvisioningPartRequest = z
  .strictObject({})
  .optional()
  .meta({ id: 'ProvisioningPartRequest', description: 'No fields: send no body or {}. Every field is refused with its path.' });

/** The cloud-instance route's body: like the other parts, plus `replace` for a dead instance. */
export const CloudInstanceRequest = z
  .strictObject({
    replace: z
      .boolean()
      .optional()
      .describe(
        'true: the recorded instance is terminated (or shutting down); create a new one under the next client-token generation and keep the old id on record (server.replaced).',
      ),
  })
  .optional()
  .meta({ id: 'CloudInstanceRequest', description: 'No body, {} or {"replace": true}. Any other field is refused with its path.' });
