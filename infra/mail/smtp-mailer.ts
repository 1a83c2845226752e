import nodemailer from 'nodemailer';
import type { Mailer } from '../../domain/app-workflows/mailer.ts';

/** Notify emails over SMTP (nodemailer) from SVC_SMTP_URL; plain text, one recipient a message. */
export function smtpMailer(opts: { url: string; from: string }): Mailer & { close(): void } {
  const transport = nodemailer.createTransport(opts.url);
  return {
    configured: true,
    async send(message) {
      await transport.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}
