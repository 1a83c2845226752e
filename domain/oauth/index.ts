// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { authenticateAppToken } from './authenticate-app-token.ts';
export { checkAuthorization, decideAuthorization } from './decide-authorization.ts';
export { mcpPath, mcpResource } from './mcp-resource.ts';
export { redeemCode, takeCode } from './redeem-code.ts';
export { refreshAppToken, revokeReplayedGrant } from './refresh-app-token.ts';
export { registerClient } from './register-client.ts';
export { revokeAppToken } from './revoke-app-token.ts';
export { ACCESS_PREFIX } from './token-format.ts';
