import { styleText } from 'node:util';
import type { CliError } from './errors.ts';

type Style = Parameters<typeof styleText>[0];

/**
 * Where a command writes. Results go to stdout (one JSON document with `--json`); messages,
 * prompts and progress to stderr, so `--json` output stays parseable. Colour only on a terminal
 * and never with NO_COLOR (styleText checks both on the stream it writes to); no progress display
 * unless stdout and stderr are terminals.
 */
export class Output {
  readonly json: boolean;
  readonly stdout: NodeJS.WriteStream = process.stdout;
  readonly stderr: NodeJS.WriteStream = process.stderr;

  constructor(json: boolean) {
    this.json = json;
  }

  /** Styled text for stdout. */
  style(format: Style, text: string): string {
    return styleText(format, text, { stream: this.stdout });
  }

  /** Styled text for stderr. */
  styleErr(format: Style, text: string): string {
    return styleText(format, text, { stream: this.stderr });
  }

  /** Progress displays only for a person at a terminal: never with --json or output going elsewhere. */
  get interactive(): boolean {
    return !this.json && this.stdout.isTTY === true && this.stderr.isTTY === true;
  }

  /** A message for the person (stderr), never part of the result. */
  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  /** The command's result: `data` as JSON with --json, else the human lines. */
  result(data: unknown, human: () => string | string[]): void {
    if (this.json) {
      this.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      return;
    }
    const lines = human();
    const text = Array.isArray(lines) ? lines.join('\n') : lines;
    if (text) this.stdout.write(`${text}\n`);
  }

  /** One item of a stream that goes on (`--follow`): a JSON line with --json, else its human line. */
  item(data: unknown, human: () => string): void {
    this.stdout.write(`${this.json ? JSON.stringify(data) : human()}\n`);
  }

  failure(error: CliError): void {
    const { code, requestId, details } = error.extra;
    if (this.json) {
      this.stdout.write(
        `${JSON.stringify({ ok: false, error: { code: code ?? 'cli_error', message: error.message, details, requestId } }, null, 2)}\n`,
      );
      return;
    }
    const head = this.styleErr('red', 'Error:');
    this.stderr.write(`${head} ${code ? `${code}: ` : ''}${error.message}\n`);
    for (const line of detailLines(details)) this.stderr.write(`  ${line}\n`);
    if (requestId) this.stderr.write(`  request id: ${requestId}\n`);
  }
}

/**
 * Problems and warnings of a bundle_invalid or invalid_payload answer, and the parameter diff
 * and the run in progress of a refused provisioning call (conflict), one line each.
 */
function detailLines(details: unknown): string[] {
  if (!details || typeof details !== 'object') return [];
  const d = details as {
    problems?: { path: string; code: string; message: string }[];
    omittedProblems?: number;
    changes?: { field: string; stored: string; requested: string }[];
    running?: { workflowId: string; runId: string | null };
  };
  const lines = (d.problems ?? []).map((p) => `${p.path}: ${p.message} (${p.code})`);
  if (d.omittedProblems) lines.push(`… and ${d.omittedProblems} more`);
  for (const c of d.changes ?? []) lines.push(`${c.field}: stored ${c.stored}, requested ${c.requested}`);
  if (d.running) lines.push(`running: ${d.running.workflowId}${d.running.runId ? ` (run ${d.running.runId})` : ' (waiting to start)'}`);
  return lines;
}

/** Rows as aligned columns (no colour in the cells, so widths are exact). */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
