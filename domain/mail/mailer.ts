// Where notify emails go: SMTP (infra/mail/smtp-mailer.ts) when SVC_SMTP_URL is set; otherwise
// the service records each message and sends nothing (`configured: false`).

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly configured: boolean;
  /** Throws TemporaryMailError when the server refused for now; any other error is final. */
  send(message: MailMessage): Promise<void>;
}

/** The mail server refused for now (a 4xx answer) or could not be reached: sending again later may succeed. */
export class TemporaryMailError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TemporaryMailError';
  }
}

export const unconfiguredMailer: Mailer = {
  configured: false,
  async send() {
    throw new Error('no SMTP server is configured (SVC_SMTP_URL)');
  },
};
