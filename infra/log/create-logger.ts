import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

/**
 * JSON lines go out asynchronously in writes of at least 4 KiB or every 100 ms, whichever comes
 * first: a request never waits on the output, and under load one write carries dozens of lines
 * instead of one each. pino writes what is still buffered when the process exits. Pretty lines
 * (a terminal) are written at once.
 */
export function createLogger(opts: { level: string; format: LogFormat; dest?: number | string; colorize?: boolean }): Logger {
  if (opts.format === 'json') {
    return pino({ level: opts.level }, pino.destination({ dest: opts.dest ?? 1, sync: false, minLength: 4096, periodicFlush: 100 }));
  }
  return pino(
    { level: opts.level },
    pretty({ colorize: opts.colorize === true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}
