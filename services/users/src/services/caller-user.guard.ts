import { AppError } from '@inkwell/errors';
import type { Viewer } from '../domain/user.js';

/**
 * The user a credential call acts for: the caller's own, from the call's signed assertion
 * (docs/api/foundation.md, "Internal calls"), never an id sent in a request. A caller without a
 * user (an app, or a service acting as itself) is PERMISSION_DENIED (`forbidden`) with `message`.
 */
export function callerUserId(caller: Viewer, message: string): string {
  if (caller.userId === undefined) throw AppError.forbidden(message);
  return caller.userId;
}
