import type { EgPolicy } from '../eg.types.js';
import { sendJsonApi } from '../../http/api-response.js';
import { errorDocument } from '../../jsonapi/error.mapping.js';

/** The path prefix of the unauthenticated copy of the API used by the benchmark. */
export const BENCH_NOAUTH_PREFIX = '/bench-noauth';

/**
 * The gate of the `bench-noauth` pipeline (gateway.config.yml): `/bench-noauth/api/v1/...` is
 * the API without bearer-auth, rate-limit and require-auth, so that `npm run bench` can measure
 * what those policies cost in the same process. Unless BENCH_NOAUTH=true it answers 404 like
 * any unknown path; when enabled it strips the prefix and lets api-dispatch serve the request
 * with the anonymous caller.
 */
export function createBenchNoAuthPolicy(enabled: boolean): EgPolicy {
  const notFound = errorDocument('not_found', 'There is no such resource. The API lives under /api/v1.');
  return {
    name: 'bench-noauth',
    schema: { $id: 'https://inkwell.dev/schemas/policies/bench-noauth.json', type: 'object', properties: {} },
    policy: () => (req, res, next) => {
      if (!enabled) {
        sendJsonApi(res, 404, notFound);
        return;
      }
      const original = req.originalUrl ?? req.url ?? '/';
      req.originalUrl = original.slice(BENCH_NOAUTH_PREFIX.length);
      next();
    },
  };
}
