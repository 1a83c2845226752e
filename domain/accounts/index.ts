// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { bootstrapOperator } from './bootstrap-operator.ts';
export { changePassword } from './change-password.ts';
export { checkPassword, dummyHash } from './check-password.ts';
export { createAccount } from './create-account.ts';
export { getAccount, policyAttributesOf } from './get-account.ts';
export { getCurrentUser, getUser } from './get-user.ts';
export { listAccountKeys } from './list-account-keys.ts';
export { listAccounts } from './list-accounts.ts';
export { peopleScope } from './people-scope.ts';
export { endMemberInvitations, findAccountByLogin } from './repository.ts';
export { revokeAccountKeys } from './revoke-account-keys.ts';
export { setUserAttributes } from './set-user-attributes.ts';
export { updateAccount } from './update-account.ts';
