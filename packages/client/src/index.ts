import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './gen/api.js';

export type { components, operations, paths } from './gen/api.js';
export type { Middleware } from 'openapi-fetch';

/** The JSON:API media type every request body is sent as and every response is read as. */
export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

/** A client of the Inkwell API whose paths, parameters, bodies and responses are typed from the OpenAPI document. */
export type InkwellClient = Client<paths, typeof JSON_API_MEDIA_TYPE>;

/** Options of {@link createInkwellClient}. */
export interface InkwellClientOptions {
  /** The API base, e.g. `https://inkwell.example/api/v1`. */
  readonly baseUrl: string;
  /** The bearer token of each request (an access or personal token); undefined sends none. */
  readonly token?: () => string | undefined;
  /** A fetch implementation (default: the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * A typed client of the Inkwell REST API (openapi-fetch over the types openapi-typescript
 * generates from the gateway's document, docs/api/reference.md): every request carries
 * `Authorization: Bearer <token>` when `token` gives one, and bodies go out as JSON:API.
 *
 * ```ts
 * const api = createInkwellClient({ baseUrl: 'https://inkwell.example/api/v1', token: () => accessToken });
 * const { data, error } = await api.GET('/stories/{id}', { params: { path: { id: '1' }, query: { include: 'author' } } });
 * ```
 */
export function createInkwellClient(options: InkwellClientOptions): InkwellClient {
  const client = createClient<paths, typeof JSON_API_MEDIA_TYPE>({
    baseUrl: options.baseUrl,
    headers: { 'Content-Type': JSON_API_MEDIA_TYPE, Accept: JSON_API_MEDIA_TYPE },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const { token } = options;
  if (token !== undefined) client.use(bearer(token));
  return client;
}

function bearer(token: () => string | undefined): Middleware {
  return {
    onRequest({ request }) {
      const value = token();
      if (value !== undefined && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${value}`);
      return request;
    },
  };
}

/** Where the OpenAPI document the types were generated from lies (JSON), e.g. for contract checks in tests. */
export const OPENAPI_DOCUMENT_URL = new URL('./gen/openapi.json', import.meta.url);
