import type { IncomingMessage } from 'node:http';
import type { CallerContext } from '@inkwell/grpc';
import { OAuthFailure } from './oauth-response.js';
import { OAuthModel, type ModelClient, type OAuthUsersClient } from './oauth.model.js';

/** Client credentials as presented: by HTTP Basic or in the form body (RFC 6749 §2.3.1). */
export interface PresentedClient {
  readonly clientId: string;
  /** Undefined when the client sent only its id (a public client). */
  readonly clientSecret: string | undefined;
}

/**
 * The client credentials of a request. HTTP Basic carries `client_id:client_secret`, each
 * form-urlencoded (RFC 6749 §2.3.1); the body may carry `client_id` and `client_secret`
 * instead. Using both methods, or a malformed Basic header, is `invalid_request`; no client id
 * at all is `invalid_client` (401).
 */
export function presentedClient(req: IncomingMessage, form: URLSearchParams): PresentedClient {
  const header = req.headers.authorization;
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (header !== undefined && /^basic /i.test(header)) {
    if (bodySecret !== null) throw new OAuthFailure(400, 'invalid_request', 'use one client authentication method, not both');
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new OAuthFailure(400, 'invalid_request', 'malformed Basic credentials');
    const clientId = safeDecode(decoded.slice(0, colon));
    const clientSecret = safeDecode(decoded.slice(colon + 1));
    if (clientId === undefined || clientSecret === undefined) throw new OAuthFailure(400, 'invalid_request', 'malformed Basic credentials');
    if (bodyId !== null && bodyId !== clientId) throw new OAuthFailure(400, 'invalid_request', 'client_id differs from the Basic credentials');
    return { clientId, clientSecret };
  }
  if (bodyId === null || bodyId === '') throw new OAuthFailure(401, 'invalid_client', 'client authentication is required');
  return { clientId: bodyId, clientSecret: bodySecret === null || bodySecret === '' ? undefined : bodySecret };
}

/**
 * The client a token-endpoint request names, without checking anything: the id of HTTP Basic
 * credentials, else the form's `client_id`; undefined when neither is readable. For the CORS
 * decision only (docs/api/auth.md, "Browser apps (CORS)"), never for authentication.
 */
export function claimedClientId(req: IncomingMessage, form: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon <= 0 ? undefined : safeDecode(decoded.slice(0, colon));
  }
  return form.get('client_id') ?? undefined;
}

/**
 * Authenticates the client of a revocation or introspection request: a confidential client
 * must present its secret; a public client is identified by its id alone, and only when
 * `allowPublic`. Any failure is `401 invalid_client`.
 */
export async function authenticateClient(
  req: IncomingMessage,
  form: URLSearchParams,
  users: OAuthUsersClient,
  caller: CallerContext,
  options: { readonly allowPublic: boolean },
): Promise<ModelClient> {
  const presented = presentedClient(req, form);
  const model = new OAuthModel(users, caller.requestId);
  const client = await model.getClient(presented.clientId, presented.clientSecret);
  if (client === false || (!options.allowPublic && !client.confidential)) throw new OAuthFailure(401, 'invalid_client', 'client authentication failed');
  return client;
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
