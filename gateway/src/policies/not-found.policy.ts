import { sendJsonApi } from '../http/api-response.js';
import { errorDocument } from '../jsonapi/error.mapping.js';
import type { EgPolicy } from '../eg/eg.types.js';

/**
 * The pipeline of every path outside the API and the operational endpoints: a JSON:API 404
 * `not_found`, so that no path of the gateway answers with express's HTML error page.
 */
export function createNotFoundPolicy(): EgPolicy {
  const document = errorDocument('not_found', 'There is no such resource. The API lives under /api/v1.');
  return {
    name: 'not-found',
    schema: { $id: 'https://inkwell.dev/schemas/policies/not-found.json', type: 'object', properties: {} },
    policy: () => (_req, res) => sendJsonApi(res, 404, document),
  };
}
