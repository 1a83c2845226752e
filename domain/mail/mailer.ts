// Where notify emails go: SMTP (infra/mail/smtp-mailer.ts) when SVC_SMTP_URL is set; otherwise
// the service records each message and sends nothing (`configured: false`).

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly configured: boolean;
  send(message: MailMessage): Promise<void>;
}

export const unconfiguredMailer: Mailer = {
  configured: false,
  async send() {
    throw new Error('no SMTP server is configured (SVC_SMTP_URL)');
  },
};
