import { problem } from '../../schemas/problems.ts';
import { ApiError } from '../http/api-error.ts';
import type { Membership } from './repository.ts';

/**
 * The company a new key acts for: the one given, or the only one there is.
 * A missing choice is `company_required` for terminal login and `invalid_payload`
 * (at `cellId`) for the device decision, whose error list is narrower in the spec;
 * both name the choices in `details.companies`.
 */
export function chooseCompany(
  memberships: Membership[],
  cellId: string | undefined,
  missing: 'company_required' | 'invalid_payload' = 'company_required',
): Membership {
  if (memberships.length === 0) {
    throw new ApiError('forbidden', 403, undefined, 'This account belongs to no company; ask an administrator for a license.');
  }
  if (cellId !== undefined) {
    const chosen = memberships.find((m) => m.cellId === cellId);
    if (!chosen) throw new ApiError('forbidden', 403, { cellId }, `This account cannot act for ${cellId}.`);
    return chosen;
  }
  if (memberships.length > 1) {
    const companies = memberships.map((m) => ({ cellId: m.cellId, name: m.name, role: m.role }));
    const message = 'This account acts for several companies: pass cellId.';
    throw missing === 'company_required'
      ? new ApiError('company_required', 400, { companies }, message)
      : new ApiError('invalid_payload', 400, { problems: [problem('cellId', 'required', message)], companies }, message);
  }
  return memberships[0]!;
}
