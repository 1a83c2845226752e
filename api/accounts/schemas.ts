import { z } from 'zod';
import { CellId, Role } from '../keys/schemas.ts';

export const Username = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,63}$/, '2 to 64 letters, digits, dots, hyphens or underscores');
export const Email = z.email().max(254);
/** New passwords only; a login attempt accepts any 1 to 256 characters. */
export const NewPassword = z.string().min(12, 'at least 12 characters').max(256);

export const LicenseInput = z.strictObject({ role: Role, admin: z.boolean().default(false) });

export const AccountView = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string(),
    status: z.enum(['active', 'pending', 'disabled']),
    emailVerified: z.boolean(),
    mustChangePassword: z.boolean(),
    platformStaff: z.boolean(),
    organizations: z.array(z.object({ cellId: z.string(), name: z.string(), role: Role, admin: z.boolean() })),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Account' });

export const CreateAccountInput = z.strictObject({
  username: Username,
  email: Email,
  password: NewPassword.optional().meta({ description: 'Without a password the account is pending and cannot sign in.' }),
  mustChangePassword: z.boolean().default(false),
  emailVerified: z.boolean().default(false),
  organizations: z.array(z.strictObject({ cellId: CellId, role: Role, admin: z.boolean().default(false) })).max(50).default([]),
});
export type CreateAccountInput = z.output<typeof CreateAccountInput>;
