import { apiRoutes, type ApiRoutesDeps } from '../routes/api.routes.js';
import type { RouteDefinition } from '../routing/route.types.js';
import { buildOpenApiDocument, type OpenApiObject } from './openapi.document.js';

/** `info.version` of the document: the major version of the path (/api/v1) and its revision. */
export const API_DOCUMENT_VERSION = '1.0.0';

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

/** The OpenAPI 3.1 document of /api/v1, generated from the route table (see buildOpenApiDocument). */
export function apiDocument(routes: readonly RouteDefinition[] = declaredApiRoutes()): OpenApiObject {
  return buildOpenApiDocument(routes, { version: API_DOCUMENT_VERSION });
}
