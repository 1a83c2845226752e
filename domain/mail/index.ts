// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { type Mailer, type MailMessage, TemporaryMailError, unconfiguredMailer } from './mailer.ts';
