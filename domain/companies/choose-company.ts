import { problem } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';
import type { License } from './repository.ts';

/**
 * The company a new key acts for: the one given, or the only one there is.
 * A missing choice is `company_required` for terminal login and `invalid_payload`
 * (at `cellId`) for the device decision, whose error list is narrower in the spec;
 * both name the choices in `details.companies`.
 */
export function chooseCompany(
  licenses: License[],
  cellId: string | undefined,
  missing: 'company_required' | 'invalid_payload' = 'company_required',
): License {
  if (licenses.length === 0) {
    throw new DomainError('forbidden', 'This account belongs to no company; ask an administrator for a license.');
  }
  if (cellId !== undefined) {
    const chosen = licenses.find((l) => l.cellId === cellId);
    if (!chosen) throw new DomainError('forbidden', `This account cannot act for ${cellId}.`, { details: { cellId } });
    return chosen;
  }
  if (licenses.length > 1) {
    const companies = licenses.map((l) => ({ cellId: l.cellId, name: l.name, role: l.role }));
    const message = 'This account acts for several companies: pass cellId.';
    throw missing === 'company_required'
      ? new DomainError('company_required', message, { details: { companies } })
      : new DomainError('invalid_payload', message, { details: { problems: [problem('cellId', 'required', message)], companies } });
  }
  return licenses[0]!;
}
