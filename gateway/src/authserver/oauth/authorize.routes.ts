import type { ServerResponse } from 'node:http';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { UsersService } from '@inkwell/proto/users';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { EgApp } from '../../eg/eg.types.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { consentPage } from '../pages/consent.page.js';
import { html, layout, sendPage, sendRedirect } from '../pages/html.js';
import { PageError, type PageContext } from '../pages/page-context.js';
import { signInUrl } from '../pages/return-to.js';
import { checkAuthorizationRequest, clientRedirect, readAuthorizationParams, type AuthorizationClient, type AuthorizationParams, type ValidAuthorizationRequest } from './authorization-request.js';
import { createOAuthServer } from './oauth.server.js';
import { OAuthModel, type OAuthUsersClient } from './oauth.model.js';

/** What the authorization endpoint needs. */
export interface AuthorizeRoutesDeps {
  readonly pages: PageContext;
  readonly users: OAuthUsersClient & Pick<GrpcClient<typeof UsersService>, 'getClient'>;
  /** The issuer identifier (PUBLIC_BASE_URL): the `iss` of every answer (RFC 9207). */
  readonly issuer: string;
  readonly logger: Logger;
}

/**
 * `GET /oauth/authorize` and the consent form's `POST /oauth/authorize` (authorization code
 * grant, RFC 6749 §4.1, with PKCE, RFC 7636).
 *
 * GET checks the request (checkAuthorizationRequest): problems with the client or redirect_uri
 * are shown as a page (400), never redirected; other problems are redirected to the client
 * with `error` only once the person has signed in (before that they are a 400 page too, so that
 * nobody can use our origin as a redirector). A valid request from someone not signed in goes to
 * the sign-in page, which comes back here; a signed-in person sees the consent page.
 *
 * POST (the consent form: CSRF-checked, signed-in only) checks the request again. Deny →
 * redirect with `error=access_denied`. Allow → @node-oauth/oauth2-server issues the code
 * (stored as a hash by the users service, valid 2 minutes) and the client gets
 * `code`, `state` and `iss`.
 */
export function registerAuthorizeRoutes(app: EgApp, deps: AuthorizeRoutesDeps): void {
  const { pages, users, issuer, logger } = deps;

  const lookUpClient = async (req: GatewayRequest, params: AuthorizationParams, repeated: readonly string[]): Promise<AuthorizationClient | undefined> => {
    if (params.clientId === null || params.clientId === '' || repeated.includes('client_id')) return undefined;
    try {
      const { client } = await users.getClient({ clientId: params.clientId }, { caller: pages.caller(req) });
      return client === undefined ? undefined : { id: client.id, name: client.name, redirectUris: client.redirectUris, confidential: client.confidential };
    } catch (error) {
      if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return undefined;
      throw error;
    }
  };

  const refused = (res: ServerResponse, message: string): undefined => {
    sendPage(res, 400, layout('Authorization request refused', html`<p class="error" role="alert">${message}</p><p>Go back to the application and try again, or tell its developers.</p>`));
    return undefined;
  };

  /**
   * Checks the request; answers the problems itself and returns undefined, or the valid request.
   * `signedIn` false: nobody has signed in yet, so even an error the client's own redirect URI
   * could receive is shown as a page (docs/api/auth.md, "Authorization requests", where errors go: anyone can register an
   * app, so a redirect from our origin must not be a free trampoline, RFC 9700 §4.11).
   */
  const check = async (
    req: GatewayRequest,
    res: ServerResponse,
    fields: URLSearchParams,
    signedIn: boolean,
  ): Promise<{ valid: ValidAuthorizationRequest; params: AuthorizationParams } | undefined> => {
    const { params, repeated } = readAuthorizationParams(fields);
    const client = await lookUpClient(req, params, repeated);
    const result = checkAuthorizationRequest(params, repeated, client);
    if (result.kind === 'page') return refused(res, result.message);
    if (result.kind === 'redirect' && !signedIn) return refused(res, `The application sent an authorization request Inkwell cannot accept (${result.error}: ${result.description}).`);
    if (result.kind === 'redirect') {
      sendRedirect(res, clientRedirect(result.redirectUri, issuer, { error: result.error, error_description: result.description, state: result.state }));
      return undefined;
    }
    return { valid: result.request, params };
  };

  app.get(
    '/oauth/authorize',
    pages.handle('/oauth/authorize', async (req, res) => {
      const url = req.originalUrl ?? req.url ?? '/';
      const queryStart = url.indexOf('?');
      const open = await pages.session(req);
      const checked = await check(req, res, new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1)), open !== undefined);
      if (checked === undefined) return;
      if (open === undefined) return sendRedirect(res, signInUrl(url));
      const { valid, params } = checked;
      sendPage(
        res,
        200,
        consentPage({
          viewer: { name: open.session.userName, csrf: open.session.csrf },
          clientName: valid.client.name,
          clientId: valid.client.id,
          redirectUri: valid.redirectUri,
          redirectUriSent: params.redirectUri !== null,
          scopes: valid.scopes,
          state: valid.state,
          codeChallenge: valid.codeChallenge,
          codeChallengeMethod: valid.codeChallengeMethod,
        }),
        { formActionSources: formActionSource(valid.redirectUri) },
      );
    }),
  );

  app.post(
    '/oauth/authorize',
    pages.handle('/oauth/authorize', async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      const checked = await check(req, res, authorizationFields(form), true);
      if (checked === undefined) return;
      const { valid, params } = checked;
      const userId = session.session.userId;

      const decision = form.get('decision');
      if (decision === 'deny') {
        return sendRedirect(res, clientRedirect(valid.redirectUri, issuer, { error: 'access_denied', error_description: 'the user denied the request', state: valid.state }));
      }
      if (decision !== 'approve') throw new PageError(400, 'Authorization request refused', 'Choose Allow or Deny.');

      const model = new OAuthModel(users, req.inkwell?.requestId ?? 'authorize');
      if (params.redirectUri === null) model.redirectUriWasOmitted();
      const request = new OAuth2Server.Request({
        method: 'POST',
        headers: {},
        query: {},
        body: {
          client_id: valid.client.id,
          redirect_uri: valid.redirectUri,
          response_type: 'code',
          ...(valid.scopes.length === 0 ? {} : { scope: valid.scopes.join(' ') }),
          ...(valid.state === undefined ? {} : { state: valid.state }),
          ...(valid.codeChallenge === undefined ? {} : { code_challenge: valid.codeChallenge, code_challenge_method: valid.codeChallengeMethod }),
        },
      });
      const response = new OAuth2Server.Response();
      try {
        await createOAuthServer(model).authorize(request, response, { authenticateHandler: { handle: () => ({ id: userId }) } });
      } catch (error) {
        if (!(error instanceof OAuth2Server.OAuthError) || response.get('location') === undefined) throw error;
        if (error instanceof OAuth2Server.ServerError) logger.error({ err: error, requestId: req.inkwell?.requestId }, 'issuing an authorization code failed');
      }
      sendRedirect(res, clientRedirect(String(response.get('location')), issuer, {}));
    }),
  );

  app.all('/oauth/authorize', (req, res) => methodNotAllowed(req, res, 'GET, POST'));
}

/** Only the authorization request parameters of the consent form (not its CSRF token or decision). */
function authorizationFields(form: URLSearchParams): URLSearchParams {
  const fields = new URLSearchParams();
  for (const [name, value] of form) if (name !== 'csrf_token' && name !== 'decision') fields.append(name, value);
  return fields;
}

/** The CSP form-action source that lets the consent form's redirect reach the client. */
function formActionSource(redirectUri: string): string[] {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? [url.origin] : [url.protocol];
  } catch {
    return [];
  }
}

/** 405 for the other methods of an OAuth endpoint. */
export function methodNotAllowed(_req: GatewayRequest, res: ServerResponse, allow: string): void {
  res.statusCode = 405;
  res.setHeader('Allow', allow);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(`Method not allowed; use ${allow}.\n`);
}
