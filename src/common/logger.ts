import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

/** Levels at and above `min`, in Nest's terms. */
export function levelsFrom(min: LogLevel): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(min) + 1);
}

/** One JSON object per line on stdout (stderr for errors): for production log collectors. */
export class JsonLogger implements LoggerService {
  constructor(private readonly levels: LogLevel[]) {}

  private write(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (!this.levels.includes(level)) return;
    const params = [...rest];
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, context };
    if (message && typeof message === 'object' && !(message instanceof Error)) Object.assign(entry, message);
    else entry.msg = message instanceof Error ? message.message : String(message);
    if (level === 'error' && typeof params[0] === 'string') entry.stack = params[0];
    const line = JSON.stringify(entry) + '\n';
    (level === 'error' ? process.stderr : process.stdout).write(line);
  }

  log(message: unknown, ...rest: unknown[]) {
    this.write('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('verbose', message, rest);
  }
}

export function createLogger(format: 'json' | 'text', level: LogLevel): LoggerService {
  const levels = levelsFrom(level);
  return format === 'json' ? new JsonLogger(levels) : new ConsoleLogger({ logLevels: levels });
}
