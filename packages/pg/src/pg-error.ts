import { AppError, ErrorCode, isAppError } from '@inkwell/errors';

/** The fields of a Postgres server error (pg's DatabaseError) that we look at. */
interface PgServerError extends Error {
  code: string;
  severity: string;
  constraint?: string;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Socket-level failures from Node, and pg's own messages for a lost or unobtainable connection. */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const CONNECTION_ERROR_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end',
];

function isPgServerError(error: unknown): error is PgServerError {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  // Node's socket errors have codes too (EPIPE fits the SQLSTATE shape); only server errors carry a severity.
  return typeof code === 'string' && SQLSTATE.test(code) && typeof severity === 'string';
}

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionError)) return true;
  return CONNECTION_ERROR_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * Turns an error thrown by the pg driver into an AppError, so repositories never leak driver
 * errors upwards. The original error is kept as `cause` (logged, never sent), which also keeps
 * the violated constraint's name reachable through `constraintName`:
 *
 * - 23505 unique violation → ALREADY_EXISTS
 * - 23503 foreign-key violation → FAILED_PRECONDITION
 * - 23514 check, 23502 not-null, class 22 data exceptions (bad uuid text, overflow) → INVALID_ARGUMENT
 * - 40001 serialization failure, 40P01 deadlock → ABORTED (safe to retry the transaction)
 * - 57014 statement timeout / cancel → DEADLINE_EXCEEDED
 * - class 08, 57P01–57P03, 53300 and socket errors (refused, reset, pool timeout) → UNAVAILABLE
 * - anything else → INTERNAL
 *
 * An AppError passes through unchanged, so it is safe to call on whatever a `catch` receives.
 */
export function translatePgError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (isPgServerError(error)) {
    const code = error.code;
    const cause = { cause: error };
    switch (code) {
      case '23505':
        return new AppError(ErrorCode.ALREADY_EXISTS, 'The resource already exists.', cause);
      case '23503':
        return new AppError(ErrorCode.FAILED_PRECONDITION, 'A referenced resource does not exist or is still referenced.', cause);
      case '23514':
      case '23502':
        return new AppError(ErrorCode.INVALID_ARGUMENT, 'A value is missing or not allowed.', cause);
      case '40001':
      case '40P01':
        return new AppError(ErrorCode.ABORTED, 'The operation conflicted with a concurrent change; retry it.', cause);
      case '57014':
        return new AppError(ErrorCode.DEADLINE_EXCEEDED, 'The database did not answer in time.', cause);
      case '57P01':
      case '57P02':
      case '57P03':
      case '53300':
        return new AppError(ErrorCode.UNAVAILABLE, 'The database is unavailable.', cause);
    }
    if (code.startsWith('22')) return new AppError(ErrorCode.INVALID_ARGUMENT, 'A value is not valid.', cause);
    if (code.startsWith('08')) return new AppError(ErrorCode.UNAVAILABLE, 'The database is unavailable.', cause);
    return new AppError(ErrorCode.INTERNAL, 'Internal error.', cause);
  }
  if (isConnectionError(error)) {
    return new AppError(ErrorCode.UNAVAILABLE, 'The database is unavailable.', { cause: error });
  }
  return new AppError(ErrorCode.INTERNAL, 'Internal error.', { cause: error });
}

/**
 * The name of the constraint a Postgres error (or an AppError made from one by
 * `translatePgError`) is about, e.g. `users_name_key`; undefined for anything else. Lets a
 * repository turn one specific unique violation into its own message:
 * `if (constraintName(e) === 'users_email_key') throw new AppError(ALREADY_EXISTS, 'Email taken.')`.
 */
export function constraintName(error: unknown): string | undefined {
  const source = isAppError(error) ? error.cause : error;
  if (!isPgServerError(source)) return undefined;
  return typeof source.constraint === 'string' ? source.constraint : undefined;
}

/**
 * Runs `work` (a repository's SQL) and turns whatever the driver throws into an AppError with
 * {@link translatePgError}: the one place repositories catch driver errors. An AppError thrown
 * inside `work` (a rule the repository enforces under a lock) passes through unchanged.
 */
export async function withPgErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translatePgError(error);
  }
}
