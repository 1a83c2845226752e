// Every workflow the worker runs. Workflow code imports activity types only.
export { deviceLoginExpiry } from './device-login-expiry.ts';
