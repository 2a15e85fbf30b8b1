/**
 * The slice of a pino logger this package writes to. Any `@inkwell/logging` logger fits; the
 * package does not depend on it so that scripts and tests can pass something smaller.
 */
export interface PgLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Used when the caller passes no logger: errors and warnings still reach stderr. */
export const stderrLogger: PgLogger = {
  info: () => {},
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
};
