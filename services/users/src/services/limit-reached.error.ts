import { AppError, ErrorCode } from '@inkwell/errors';

/**
 * A per-user cap is reached (apps per owner, active personal tokens per user: docs/api/accounts.md):
 * FAILED_PRECONDITION with reason `limit_reached` and a message that says what to do about it.
 */
export function limitReached(message: string): AppError {
  return new AppError(ErrorCode.FAILED_PRECONDITION, message, { details: [{ reason: 'limit_reached', detail: message }] });
}
