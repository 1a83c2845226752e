import nodemailer from 'nodemailer';
import type { Mailer } from '../../domain/mail/index.ts';

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
      await transport.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}
