import { ApiError } from '../http/api-error.ts';
import type { Membership } from './repository.ts';

/** The company a new key acts for: the one given, or the only one there is. */
export function chooseCompany(memberships: Membership[], cellId: string | undefined): Membership {
  if (memberships.length === 0) {
    throw new ApiError('forbidden', 403, undefined, 'This account belongs to no company; ask an administrator for a license.');
  }
  if (cellId !== undefined) {
    const chosen = memberships.find((m) => m.cellId === cellId);
    if (!chosen) throw new ApiError('forbidden', 403, { cellId }, `This account cannot act for ${cellId}.`);
    return chosen;
  }
  if (memberships.length > 1) {
    throw new ApiError(
      'company_required',
      400,
      { companies: memberships.map((m) => ({ cellId: m.cellId, name: m.name, role: m.role })) },
      'This account acts for several companies: pass cellId.',
    );
  }
  return memberships[0]!;
}
