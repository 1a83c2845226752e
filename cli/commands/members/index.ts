import { extname } from 'node:path';
import type { Command } from 'commander';
import { withContext } from '../../util/command.ts';
import type { Context } from '../../util/context.ts';
import { invalidFile, parseJsonFile, readInputFile } from '../../util/input-file.ts';
import { table } from '../../util/output.ts';

type Seats = { limit: number | null; used: number };
type Member = {
  accountId: string;
  username: string;
  email: string;
  name: string | null;
  role: string;
  admin: boolean;
  status: 'active' | 'pending' | 'disabled';
  activated: boolean;
  externalId: string | null;
};
type ImportResult = {
  source: string | null;
  dryRun: boolean;
  summary: Record<string, number>;
  seats: Seats & { after: number };
  results: { row: number; email: string; outcome: string; accountId: string | null; reason?: string }[];
  invitations: { email: string; status: 'queued' | 'recorded' }[];
};
type ImportOptions = { source?: string; dryRun?: true };

const MEMBERS = '/api/v1/developer/members';

export function registerMembers(program: Command): void {
  const members = program.command('members').description('People of your company (developers)');
  members
    .command('list')
    .description('List the company’s members, their role and activation, and the seats')
    .action(withContext(listMembers));
  members
    .command('import')
    .description('Import people into the company from a CSV (header with email, optionally name and externalId) or JSON list')
    .argument('<file>', 'a .csv file, or a .json file: an array of {email, name?, externalId?} or {source?, members}')
    .option('--source <label>', 'the system the list comes from (kept with the import)')
    .option('--dry-run', 'show what the import would do; nothing changes')
    .action(withContext(importMembers));
}

async function listMembers(ctx: Context): Promise<void> {
  const { members, seats } = await ctx.client().request<{ members: Member[]; seats: Seats }>('GET', MEMBERS);
  ctx.out.result({ members, seats }, () => [
    ...table(
      ['USERNAME', 'EMAIL', 'NAME', 'ROLE', 'STATUS', 'EXTERNAL ID'],
      members.map((m) => [
        m.username,
        m.email,
        m.name ?? '',
        `${m.role}${m.admin ? ' (admin)' : ''}`,
        m.status === 'pending' ? 'pending (invited)' : m.status,
        m.externalId ?? '',
      ]),
    ),
    '',
    seatLine(seats),
  ]);
}

async function importMembers(ctx: Context, file: string, options: ImportOptions): Promise<void> {
  const list = await readMemberFile(file);
  const result = await ctx.client().request<ImportResult>('POST', `${MEMBERS}/import`, {
    body: {
      ...list,
      ...(options.source !== undefined ? { source: options.source } : {}),
      ...(options.dryRun ? { dryRun: true } : {}),
    },
  });
  const counts = Object.entries(result.summary).map(([outcome, n]) => `${outcome} ${n}`);
  // Rows that change something or need a look; kept people are only counted.
  const notable = result.results.filter((r) => r.outcome !== 'keep' && r.outcome !== 'keep_developer');
  ctx.out.result(result, () => [
    result.dryRun ? `Dry run of ${file}: nothing changed.` : `${ctx.out.style('green', '✓')} Imported ${file}.`,
    counts.join(', '),
    `${seatLine(result.seats)} → ${result.seats.after} after`,
    ...(notable.length
      ? [
          '',
          ...table(
            ['ROW', 'EMAIL', 'OUTCOME', 'REASON'],
            notable.map((r) => [String(r.row), r.email, r.outcome, r.reason ?? '']),
          ),
        ]
      : []),
    ...(result.invitations.length
      ? [
          '',
          `Invitations: ${result.invitations.length} ${result.invitations[0]!.status === 'queued' ? 'queued' : 'recorded (no SMTP: nothing sent)'}`,
        ]
      : []),
  ]);
}

/** The request body: CSV travels as text in `members`; a JSON file is the list or the whole object. */
async function readMemberFile(file: string): Promise<{ members: unknown; source?: unknown }> {
  const kind = extname(file).toLowerCase();
  if (kind !== '.csv' && kind !== '.json') throw invalidFile(`${file}: a .csv or .json file is expected.`);
  const text = await readInputFile(file);
  if (kind === '.csv') return { members: text };
  const parsed = parseJsonFile(file, text);
  // The service refuses any other shape with every problem named (exit 2).
  return Array.isArray(parsed) || parsed === null || typeof parsed !== 'object' ? { members: parsed } : (parsed as { members: unknown });
}

const seatLine = (seats: Seats) => `Seats: ${seats.used} used of ${seats.limit ?? 'unlimited'}`;
