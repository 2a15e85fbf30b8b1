/**
 * The one error type of Inkwell. Codes mirror gRPC status codes so that a service error crosses
 * the wire unchanged; the gateway maps them to HTTP statuses and JSON:API error codes.
 */
export const ErrorCode = {
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  NOT_FOUND: 'NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  ABORTED: 'ABORTED',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  UNIMPLEMENTED: 'UNIMPLEMENTED',
  UNAVAILABLE: 'UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  CANCELLED: 'CANCELLED',
  INTERNAL: 'INTERNAL',
} as const;

/** One of the gRPC-mirroring error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Structured, client-safe detail attached to an error: the public API error code
 * (`validation_failed`, `invalid_cursor`, ...) and where the problem is (a JSON pointer into the
 * request body or a query parameter name). Never put internals here: it is sent to clients.
 */
export interface ErrorDetail {
  /** Stable snake_case API error code (docs/api/foundation.md, "Errors"). */
  reason?: string;
  /** JSON pointer into the request document, e.g. `/data/attributes/title`. */
  pointer?: string;
  /** Query parameter name, e.g. `filter[num_words]`. */
  parameter?: string;
  /** Request header name, e.g. `Idempotency-Key` (JSON:API 1.1 `source.header`). */
  header?: string;
  /** Human-readable explanation of this one problem. */
  detail?: string;
  /** With reason `insufficient_scope`: the OAuth scope the request needs (WWW-Authenticate `scope`). */
  scope?: string;
  /**
   * With reason `rate_limited`: whole seconds (at least 1) to wait before trying again, which the
   * gateway sends as `Retry-After` (docs/api/foundation.md, "Markdown").
   */
  retryAfterSeconds?: number;
}

/** Options of an AppError: the underlying cause (logged, never sent) and client-safe details. */
export interface AppErrorOptions {
  cause?: unknown;
  details?: ErrorDetail[];
  /** See {@link AppError.expected}; default false. */
  expected?: boolean;
}

/**
 * An expected failure with a code and a message that are safe to show to a client.
 * Anything that is not an AppError is treated as INTERNAL: logged with its cause, never sent.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /**
   * A state the system expects and leaves by itself, not a fault (a search index still being
   * built on a first start): where it is answered it is logged at info, as one line without a
   * stack, like a refusal, whatever its code. Never sent to clients.
   */
  readonly expected: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? [];
    this.expected = options.expected ?? false;
  }

  /** A 404-style error for a resource of the given type, e.g. `AppError.notFound('user')`. */
  static notFound(resource: string): AppError {
    return new AppError(ErrorCode.NOT_FOUND, `The ${resource} does not exist.`, {
      details: [{ reason: 'not_found' }],
    });
  }

  /**
   * The token lacks `scope` (docs/api/auth.md, "The token check on API requests"): 403 `insufficient_scope` with
   * `WWW-Authenticate: Bearer …, error="insufficient_scope", scope="<scope>"`.
   */
  static insufficientScope(scope: string): AppError {
    return new AppError(ErrorCode.PERMISSION_DENIED, `This request needs the ${scope} scope.`, {
      details: [{ reason: 'insufficient_scope', scope }],
    });
  }

  /** Not the author/owner/caller of something the caller can see: 403 `forbidden`. */
  static forbidden(message: string): AppError {
    return new AppError(ErrorCode.PERMISSION_DENIED, message, { details: [{ reason: 'forbidden' }] });
  }

  /** A malformed query parameter: 400 with `source.parameter` and the given API code. */
  static badParameter(parameter: string, detail: string, reason = 'invalid_parameter'): AppError {
    return new AppError(ErrorCode.INVALID_ARGUMENT, detail, { details: [{ reason, parameter, detail }] });
  }

  /** A validation error for one attribute of the request body. */
  static validation(pointer: string, detail: string): AppError {
    return new AppError(ErrorCode.INVALID_ARGUMENT, detail, {
      details: [{ reason: 'validation_failed', pointer, detail }],
    });
  }
}

/** True when `value` is an AppError (also across duplicated module instances). */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError || (value instanceof Error && value.name === 'AppError' && 'code' in value);
}
