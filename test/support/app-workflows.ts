import { SMTPServer } from 'smtp-server';
import type { Db } from '../../domain/db/database.ts';
import type { Principal } from '../../domain/principal.ts';

// App workflow fixtures: a company with accounts and apps whose versions carry a workflow,
// written straight to the database (the HTTP tests deploy through the API), and a real SMTP
// server on loopback that keeps what arrives.

export const FLOW_COMPANY = { id: 'co_flow', cellId: 'cell-flow' };
export const RECIPIENTS = ['ann@flow.example', 'bob@flow.example'];
/** Ann, a developer of Flow (seeded by seedFlowCompany), through a developer key. */
export const FLOW_DEVELOPER: Principal = {
  kind: 'key',
  account: { id: 'acc_ann', username: 'ann', email: RECIPIENTS[0]!, platformStaff: false },
  company: { id: FLOW_COMPANY.id, cellId: FLOW_COMPANY.cellId, name: 'Flow' },
  role: 'developer',
  key: { id: 'key_flow', displayPrefix: 'svc-dk-flow' },
};

export async function seedFlowCompany(db: Db): Promise<void> {
  await db.insertInto('companies').values({ id: FLOW_COMPANY.id, cell_id: FLOW_COMPANY.cellId, name: 'Flow' }).execute();
  for (const email of RECIPIENTS) {
    const id = `acc_${email.split('@')[0]}`;
    await db
      .insertInto('accounts')
      .values({ id, username: email.split('@')[0]!, email, status: 'active', password_hash: null })
      .execute();
    await db.insertInto('licenses').values({ account_id: id, company_id: FLOW_COMPANY.id, role: 'developer' }).execute();
  }
}

let builds = 0;
/**
 * Stores a version of `slug` with this workflow (and limits) and points production at it, as a
 * publish or rollback does; returns the app id.
 */
export async function publishWorkflow(
  db: Db,
  slug: string,
  version: string,
  manifest: { workflow?: unknown; limits?: unknown; exports?: unknown },
): Promise<string> {
  const appId = `app_${slug.replaceAll('-', '_')}`;
  await db
    .insertInto('apps')
    .values({ id: appId, namespace: FLOW_COMPANY.cellId, slug, company_id: FLOW_COMPANY.id, created_by: 'acc_ann' })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const versionId = `ver_${slug.replaceAll('-', '_')}_${version.replaceAll('.', '_')}`;
  builds++;
  await db
    .insertInto('app_versions')
    .values({
      id: versionId,
      app_id: appId,
      version,
      build: builds,
      digest: `digest-${builds}`,
      manifest: JSON.stringify({ manifestVersion: 1, slug, version, title: slug, sdk: ['semantic'], ...manifest }),
      size: 1,
      file_count: 0,
      sdk_used: '[]',
      skills: '[]',
      warnings: '[]',
      created_by: 'acc_ann',
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db.updateTable('apps').set({ production_version_id: versionId, test_version_id: versionId }).where('id', '=', appId).execute();
  return appId;
}

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/** A single-part body as nodemailer encodes it (long lines make it quoted-printable). */
function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding !== 'quoted-printable') return body;
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** Until `release`, every message waits before it is answered (a slow SMTP server). */
  hold(): void;
  release(): void;
  /** The next `count` messages are refused with a temporary failure (451). */
  refuseNext(count: number): void;
  /** Messages refused so far. */
  refused: number;
  stop(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 (any port) keeping every message it accepts. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let held: Promise<void> | undefined;
  let releaseHeld = () => {};
  let toRefuse = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        await held;
        if (toRefuse > 0) {
          toRefuse--;
          sink.refused++;
          done(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...body] = raw.split(/\r?\n\r?\n/);
        const subject = /^Subject: (.*)$/m.exec(head)?.[1] ?? '';
        const encoding = /^Content-Transfer-Encoding: (.*)$/im.exec(head)?.[1]?.trim().toLowerCase();
        const text = decodeBody(body.join('\n\n'), encoding).replaceAll('\r\n', '\n').trim();
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject, text });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  const sink: SmtpSink = {
    url: `smtp://127.0.0.1:${port}`,
    received,
    hold: () => {
      held = new Promise((resolve) => {
        releaseHeld = resolve;
      });
    },
    release: () => {
      releaseHeld();
      held = undefined;
    },
    refuseNext: (count) => {
      toRefuse = count;
    },
    refused: 0,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return sink;
}
