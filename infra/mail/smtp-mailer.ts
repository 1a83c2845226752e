import nodemailer from 'nodemailer';
import { type Mailer, TemporaryMailError } from '../../domain/mail/index.ts';

/** nodemailer's codes for a server it could not reach or that went away mid-message. */
const UNREACHABLE = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS']);

/**
 * Email over SMTP (nodemailer) from SVC_SMTP_URL: notify steps, the mail test and member
 * invitations; plain text, one recipient a message. Pooled unless the URL says `pool=false`, so a
 * member import's many invitations reuse a few connections instead of one handshake each.
 */
export function smtpMailer(opts: { url: string; from: string }): Mailer & { close(): void } {
  const url = new URL(opts.url);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  const transport = nodemailer.createTransport(url.toString());
  return {
    configured: true,
    async send(message) {
      try {
        await transport.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
      } catch (err) {
        const { responseCode, code } = err as { responseCode?: number; code?: string };
        const temporary = (responseCode !== undefined && responseCode >= 400 && responseCode < 500) || UNREACHABLE.has(code ?? '');
        if (temporary) throw new TemporaryMailError((err as Error).message, { cause: err });
        throw err;
      }
    },
    close: () => transport.close(),
  };
}
