import type { Logger } from '@inkwell/logging';
import type { EgPolicy } from '../eg.types.js';
import { sendApiError } from '../../http/api-response.js';
import { requestState } from '../../http/request-state.js';

/**
 * Answers the requests bearer-auth found without a valid token (docs/api/auth.md, "The token check on API requests": every API call
 * needs one): 401 invalid_token with the Bearer challenge, or 503 when the token could not be
 * checked. Placed after rate-limit, so these answers carry the rate-limit headers and count
 * against the client address's window. Authenticated requests go on.
 */
export function createRequireAuthPolicy(logger: Logger): EgPolicy {
  return {
    name: 'require-auth',
    schema: { $id: 'https://inkwell.dev/schemas/policies/require-auth.json', type: 'object', properties: {} },
    policy: () => (req, res, next) => {
      const failure = requestState(req).authFailure;
      if (failure === undefined) next();
      else sendApiError(req, res, failure, logger);
    },
  };
}
