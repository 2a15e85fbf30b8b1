import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError, type ErrorDetail } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';

/**
 * The one mapping table: every ErrorCode to the gRPC status of the same name. `satisfies`
 * makes tsc reject a code that is added to @inkwell/errors without a row here.
 */
const STATUS_BY_CODE = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  NOT_FOUND: status.NOT_FOUND,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  ABORTED: status.ABORTED,
  OUT_OF_RANGE: status.OUT_OF_RANGE,
  RESOURCE_EXHAUSTED: status.RESOURCE_EXHAUSTED,
  UNIMPLEMENTED: status.UNIMPLEMENTED,
  UNAVAILABLE: status.UNAVAILABLE,
  DEADLINE_EXCEEDED: status.DEADLINE_EXCEEDED,
  CANCELLED: status.CANCELLED,
  INTERNAL: status.INTERNAL,
} as const satisfies Record<ErrorCode, status>;

/** The reverse of the table; statuses without an ErrorCode (UNKNOWN, DATA_LOSS) are INTERNAL. */
const CODE_BY_STATUS = new Map<status, ErrorCode>(
  (Object.entries(STATUS_BY_CODE) as [ErrorCode, status][]).map(([code, grpcStatus]) => [grpcStatus, code]),
);

/**
 * Trailing metadata key carrying AppError.details as JSON. Our server always sets it on errors
 * (`[]` when there are none), which is also how the client tells our errors from errors that
 * grpc-js produced locally or that came from something else.
 */
export const ERROR_DETAILS_KEY = 'x-inkwell-error-details';

/** Keeps trailers well below grpc-js's default 8 KiB metadata limit. */
const MAX_DETAILS_JSON_LENGTH = 4096;

/** What the client shows for failures that did not come from one of our handlers. */
const LOCAL_MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNAVAILABLE: 'The service is unavailable.',
  DEADLINE_EXCEEDED: 'The service did not answer in time.',
  CANCELLED: 'The call was cancelled.',
};

/** The gRPC status of an ErrorCode (the one mapping table). */
export function grpcStatusOf(code: ErrorCode): status {
  return STATUS_BY_CODE[code];
}

/** The ErrorCode of a gRPC status; OK, UNKNOWN, DATA_LOSS and unknown numbers become INTERNAL. */
export function errorCodeOf(grpcStatus: number): ErrorCode {
  return CODE_BY_STATUS.get(grpcStatus) ?? ErrorCode.INTERNAL;
}

/** A status for grpc-js plus what the server needs to log it. */
export interface GrpcErrorStatus {
  code: status;
  details: string;
  metadata: Metadata;
}

/**
 * Turns anything a handler threw into a gRPC status without logging: an AppError keeps its
 * code, message and details; anything else becomes INTERNAL "internal error" and `internal` is
 * true so the caller logs the cause.
 */
export function toGrpcStatus(error: unknown): GrpcErrorStatus & { internal: boolean } {
  const metadata = new Metadata();
  if (isAppError(error)) {
    metadata.set(ERROR_DETAILS_KEY, encodeDetails(error.details));
    return { code: grpcStatusOf(error.code), details: wellFormed(error.message), metadata, internal: false };
  }
  metadata.set(ERROR_DETAILS_KEY, '[]');
  return { code: status.INTERNAL, details: 'internal error', metadata, internal: true };
}

/**
 * Maps an error thrown by a handler to the status sent to the client. An AppError keeps its
 * code, message and details (as JSON in the `x-inkwell-error-details` trailer). Anything else
 * is INTERNAL with the message "internal error"; its cause is logged at error level on
 * `logger`, never sent.
 */
export function appErrorToGrpcStatus(error: unknown, logger: Logger): GrpcErrorStatus {
  const { internal, ...grpcStatus } = toGrpcStatus(error);
  if (internal) logger.error({ err: error }, 'internal error in gRPC handler');
  return grpcStatus;
}

/**
 * Maps a failed call, as grpc-js reports it to the client, back to an AppError. Errors from our
 * own server keep their message and details. Errors grpc-js produced itself (UNAVAILABLE when
 * the service is down, DEADLINE_EXCEEDED, CANCELLED, ...) or that came from another server get
 * the matching code and a neutral message, because their text may name internal addresses;
 * a local RESOURCE_EXHAUSTED (an answer over the receive limit) becomes INTERNAL. The original
 * error is kept as `cause` for logging.
 */
export function grpcErrorToAppError(error: ServiceError): AppError {
  const code = errorCodeOf(error.code);
  const rawDetails = error.metadata?.get(ERROR_DETAILS_KEY)[0];
  if (typeof rawDetails === 'string') {
    return new AppError(code, error.details || 'The call failed.', { cause: error, details: decodeDetails(rawDetails) });
  }
  // RESOURCE_EXHAUSTED made here means an answer broke this client's message size limit: our
  // failure, never the caller's rate limit (docs/api/foundation.md, "Byte budgets").
  const localCode = code === ErrorCode.RESOURCE_EXHAUSTED ? ErrorCode.INTERNAL : code;
  return new AppError(localCode, LOCAL_MESSAGES[localCode] ?? 'The call to another service failed.', { cause: error });
}

/**
 * JSON with every non-ASCII character escaped: metadata values must be printable ASCII. Only
 * the known string fields of ErrorDetail are sent; details are dropped from the end if they would not fit.
 */
export function encodeDetails(details: readonly ErrorDetail[]): string {
  const clean = details.map(pickDetail).filter((detail): detail is ErrorDetail => detail !== undefined);
  let json = asciiJson(clean);
  while (json.length > MAX_DETAILS_JSON_LENGTH && clean.length > 0) {
    clean.pop();
    json = asciiJson(clean);
  }
  return json;
}

/** Parses the details trailer defensively: anything that is not an array of detail objects is ignored. */
export function decodeDetails(raw: string): ErrorDetail[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.map(pickDetail).filter((detail): detail is ErrorDetail => detail !== undefined);
}

const DETAIL_FIELDS = ['reason', 'pointer', 'parameter', 'detail', 'scope'] as const;

/** Longest wait a `retryAfterSeconds` may ask for (a day); anything else is dropped. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

function pickDetail(value: unknown): ErrorDetail | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const detail: ErrorDetail = {};
  for (const field of DETAIL_FIELDS) {
    const fieldValue = (value as Record<string, unknown>)[field];
    if (typeof fieldValue === 'string') detail[field] = fieldValue;
  }
  const retryAfter = (value as Record<string, unknown>).retryAfterSeconds;
  if (Number.isInteger(retryAfter) && (retryAfter as number) >= 1 && (retryAfter as number) <= MAX_RETRY_AFTER_SECONDS) detail.retryAfterSeconds = retryAfter as number;
  return detail;
}

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** grpc-js sends the status message through encodeURI, which throws on lone surrogates. */
function wellFormed(message: string): string {
  return message.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
