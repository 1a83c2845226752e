// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { createShare } from './create-share.ts';
export { describeCaller } from './describe-caller.ts';
export { findLinkByToken } from './find-link.ts';
export { listShares } from './list-shares.ts';
export { revokeShare } from './revoke-share.ts';
