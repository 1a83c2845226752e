// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { authenticateKey } from './authenticate-key.ts';
export { createPasswordToken } from './create-password-token.ts';
export { describeKey } from './describe-key.ts';
export { issueAgentKey } from './issue-agent-key.ts';
export { DEFAULT_CLIENT_NAME, issueKey } from './issue-key.ts';
export { type KeyUseRecorder, startKeyUseRecorder } from './key-use-recorder.ts';
export { listAgentKeys } from './list-agent-keys.ts';
export { listKeys } from './list-keys.ts';
export { type CacheFamily, cacheFamily, oneRequestOf, type PrincipalCache, readThrough, startPrincipalCache } from './principal-cache.ts';
export { keysOf, revokeKeysOf } from './repository.ts';
export { revokeAgentKey } from './revoke-agent-key.ts';
export { revokeKey } from './revoke-key.ts';
export { revokeTicketsOf, revokeTicketsOfGrants } from './revoke-tickets.ts';
