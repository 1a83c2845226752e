// The server's log on stderr, in the text form of Temporal's dev server (`time=... level=WARN
// msg="..." key=value`), filtered by --log-level (debug, info, warn, error, never; default warn).
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'never'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class Logger {
  private readonly min: number;
  private readonly write: (line: string) => void;

  constructor(level: LogLevel = 'warn', write: (line: string) => void = (line) => process.stderr.write(line)) {
    this.min = LOG_LEVELS.indexOf(level);
    this.write = write;
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }

  enabled(level: Exclude<LogLevel, 'never'>): boolean {
    return LOG_LEVELS.indexOf(level) >= this.min;
  }

  private log(level: Exclude<LogLevel, 'never'>, msg: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
    const parts = [`time=${new Date().toISOString()}`, `level=${level.toUpperCase()}`, `msg=${quote(msg)}`];
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) parts.push(`${key}=${quote(value instanceof Error ? (value.stack ?? value.message) : value)}`);
    }
    this.write(`${parts.join(' ')}\n`);
  }
}

/** Bare when it is a plain token, JSON-quoted otherwise (as slog's text handler does). */
function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w.:/@+-]+$/.test(text) ? text : JSON.stringify(text);
}
