import { z } from 'zod';
import { CELL_ID_PATTERN } from '../../schemas/manifest/index.ts';

export const Role = z.enum(['developer', 'member']);
export const CellId = z.string().max(64).regex(CELL_ID_PATTERN, 'must be cell- followed by lowercase letters, digits and hyphens');
export const ClientName = z.string().min(1).max(80);

export const CompanySummary = z.object({ cellId: z.string(), name: z.string() }).meta({ id: 'CompanySummary' });

/** The answer of every call that issues a key: the only place its plaintext appears. */
export const IssuedKeyResponse = z
  .object({
    key: z.string().meta({ description: 'The key (svc-dk-…). Shown only in this response.' }),
    keyId: z.string(),
    prefix: z.string(),
    role: Role,
    clientName: z.string(),
    account: z.object({ id: z.string(), username: z.string() }),
    company: CompanySummary,
  })
  .meta({ id: 'IssuedKey' });

export const KeySummary = z
  .object({
    keyId: z.string(),
    prefix: z.string(),
    role: Role,
    clientName: z.string(),
    company: CompanySummary,
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
    current: z.boolean().meta({ description: 'Whether this is the key of the calling request.' }),
  })
  .meta({ id: 'KeySummary' });
