// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { issueHandoffCode, redeemHandoffCode } from './app-host-handoff.ts';
export { createSession, SESSION_TTL_SECONDS } from './create-session.ts';
export { describeSession } from './describe-session.ts';
export { endSession } from './end-session.ts';
export { findSession } from './find-session.ts';
