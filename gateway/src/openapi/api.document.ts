import { apiRoutes, type ApiRoutesDeps } from '../routes/api.routes.js';
import type { RouteDefinition } from '../routing/route.types.js';
import { withServedDocLinks } from './doc-links.js';
import { buildOpenApiDocument, type OpenApiObject } from './openapi.document.js';
import { webhookPayloadsDocument, WEBHOOKS_TAG } from './webhook-payloads.js';

/**
 * `info.version` of the document, MAJOR.MINOR.PATCH (docs/api/reference.md, "Versioning and
 * deprecation"): MAJOR is the path's version (/api/v1); MINOR grows with every release that adds
 * to the API (endpoints, attributes, filters, sorts, error codes) or deprecates something; PATCH
 * with corrections of the description alone. 1.1.0: notifications, Atom feeds, browser apps
 * (CORS), the served documentation and webhooks.
 */
export const API_DOCUMENT_VERSION = '1.1.0';

/**
 * The routes of /api/v1 built without backends, for what only reads their declarations (the
 * API document, its tests): any use of a dependency throws, since no handler may run.
 */
export function declaredApiRoutes(): RouteDefinition[] {
  const inert: ProxyHandler<object> = {
    get(_target, name) {
      if (name === 'then') return undefined;
      return new Proxy(() => undefined, {
        get: () => {
          throw new Error(`declaredApiRoutes: dependency member ${String(name)} used; these routes only declare`);
        },
        apply: () => {
          throw new Error(`declaredApiRoutes: dependency ${String(name)} called; these routes only declare`);
        },
      });
    },
  };
  return apiRoutes(new Proxy({}, inert) as ApiRoutesDeps);
}

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the route table (see buildOpenApiDocument),
 * with the requests it sends to apps' webhook endpoints (webhookPayloadsDocument),
 * its citations of documentation pages linked to the pages the gateway serves (withServedDocLinks).
 */
export function apiDocument(routes: readonly RouteDefinition[] = declaredApiRoutes()): OpenApiObject {
  return withServedDocLinks(buildOpenApiDocument(routes, { version: API_DOCUMENT_VERSION, webhooks: { operations: webhookPayloadsDocument(), tag: WEBHOOKS_TAG } }));
}
