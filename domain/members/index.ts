// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { activateAccount } from './activate-account.ts';
export { importMembers, OUTCOMES } from './import-members.ts';
export type { InvitationStatus } from './invitations.ts';
export { listMembers } from './list-members.ts';
export { readMemberList } from './read-member-list.ts';
export { removeLicense } from './remove-license.ts';
export { consumeResendBudget, RESEND_LIMITS, resendInvitation } from './resend-invitation.ts';
export { sendMemberInvitation } from './send-invitation.ts';
export { setLicense } from './set-license.ts';
export { setSeatLimit } from './set-seat-limit.ts';
