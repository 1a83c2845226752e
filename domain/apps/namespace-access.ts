import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';

export const PUBLIC_NAMESPACE = 'public';

/** Namespaces a key may read apps in: its company's, plus `public` for platform staff. */
export function readableNamespaces(principal: Principal): string[] {
  if (principal.kind !== 'key') return [];
  return [principal.company.cellId, ...(principal.account.platformStaff ? [PUBLIC_NAMESPACE] : [])];
}

export function assertCanRead(principal: Principal, namespace: string): void {
  if (!readableNamespaces(principal).includes(namespace)) {
    const message =
      namespace === PUBLIC_NAMESPACE
        ? 'Only platform accounts may use the public namespace.'
        : `This key acts for another company; it cannot use ${namespace}.`;
    throw new DomainError('forbidden', message, { details: { namespace } });
  }
}

/** Writes need a developer key of the namespace's company (or platform staff for `public`). */
export function assertCanWrite(principal: Principal, namespace: string): void {
  assertCanRead(principal, namespace);
  if (principal.kind !== 'key' || principal.role !== 'developer') {
    throw new DomainError('forbidden', 'Members cannot write apps; a developer key is needed.', { details: { namespace } });
  }
}
