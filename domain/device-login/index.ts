// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { checkDecision, decideDeviceLogin } from './decide-device-login.ts';
export { expireDeviceLogin } from './expire-device-login.ts';
export { lookUpUserCode } from './look-up-user-code.ts';
export { checkDevicePoll, redeemDeviceLogin } from './poll-device-login.ts';
export { startDeviceLogin } from './start-device-login.ts';
export { normalizeUserCode, USER_CODE_PATTERN } from './user-code.ts';
