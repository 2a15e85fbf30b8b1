import type { ServerResponse } from 'node:http';
import { timestampDate, timestampFromMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import { SCOPE_NAMES, SCOPES, isScope } from '@inkwell/auth-tokens';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { OAuthClient, PersonalToken, UsersService } from '@inkwell/proto/users';
import type { EgApp } from '../../eg/eg.types.js';
import { isId } from '../../jsonapi/proto-rules.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { html, layout, sendPage, sendRedirect, type SafeHtml } from './html.js';
import type { PageContext, SignedInSession } from './page-context.js';
import { PageError } from './page-context.js';
import { DEFAULT_RETURN_TO, signInUrl } from './return-to.js';
import { WEBHOOKS_PAGE } from './webhooks.page.js';

/** The users-service calls of the developer page. */
export type DeveloperUsersClient = Pick<GrpcClient<typeof UsersService>, 'listClients' | 'createClient' | 'deleteClient' | 'listPersonalTokens' | 'createPersonalToken' | 'revokePersonalToken'>;

/** What the developer page needs. */
export interface DeveloperPageDeps {
  readonly pages: PageContext;
  readonly users: DeveloperUsersClient;
  /** PUBLIC_BASE_URL: shown as the issuer and API base for developers. */
  readonly issuer: string;
}

/** Lifetimes a personal token can be created with (days; 0 = no expiry). */
const TOKEN_LIFETIMES_DAYS = [30, 90, 365, 0] as const;

/** What was just created and must be shown once. */
type Created = { readonly kind: 'client'; readonly client: OAuthClient; readonly secret: string } | { readonly kind: 'token'; readonly token: string; readonly name: string };

/**
 * `/developer`, for signed-in users only (others are sent to sign in first): their OAuth
 * applications and personal access tokens.
 * - `POST /developer/apps` registers an application (name, redirect URIs one per line, the web
 *   origins of a browser app one per line (CORS, docs/api/auth.md, "Browser apps (CORS)"),
 *   confidential or public) and shows its client_id and, for confidential apps, the secret:
 *   once, on that answer only (the users service keeps a hash).
 * - `POST /developer/apps/delete` deletes one of the user's apps and every token issued to it.
 * - Each app links to its webhook endpoints (webhooks.page.ts, docs/api/webhooks.md).
 * - `POST /developer/tokens` mints a personal access token with the chosen scopes and lifetime,
 *   shown once; `POST /developer/tokens/revoke` revokes one (every gateway stops accepting it
 *   within a second).
 * Every form carries the session's CSRF token; answers of the forms are never cached. Every
 * users-service call is signed as the session's user, whose apps and tokens they are
 * (docs/api/foundation.md, "Internal calls").
 */
export function registerDeveloperPage(app: EgApp, { pages, users, issuer }: DeveloperPageDeps): void {
  const signedIn = async (req: GatewayRequest, res: ServerResponse): Promise<SignedInSession | undefined> => {
    const open = await pages.session(req);
    if (open?.session.userId === undefined || open.session.userName === undefined) {
      sendRedirect(res, signInUrl(DEFAULT_RETURN_TO));
      return undefined;
    }
    return open as SignedInSession;
  };

  const render = async (req: GatewayRequest, res: ServerResponse, open: SignedInSession, status: number, extra: { created?: Created; errors?: readonly string[] } = {}): Promise<void> => {
    const caller = pages.caller(req, open);
    const [{ clients }, { personalTokens }] = await Promise.all([
      users.listClients({}, { caller }),
      users.listPersonalTokens({}, { caller }),
    ]);
    sendPage(res, status, developerPage({ open, clients, tokens: personalTokens, issuer, ...extra }));
  };

  app.get(
    '/developer',
    pages.handle('/developer', async (req, res) => {
      const open = await signedIn(req, res);
      if (open !== undefined) await render(req, res, open, 200);
    }),
  );

  app.post(
    '/developer/apps',
    pages.handle('/developer/apps', async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      const open = requireSignedIn(session);
      const name = (form.get('name') ?? '').trim();
      const redirectUris = (form.get('redirect_uris') ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
      const allowedOrigins = (form.get('allowed_origins') ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
      const type = form.get('type');
      if (type !== 'confidential' && type !== 'public') return render(req, res, open, 400, { errors: ['Choose whether the application is confidential or public.'] });
      try {
        const created = await users.createClient({ name, redirectUris, allowedOrigins, confidential: type === 'confidential' }, { caller: pages.caller(req, open) });
        if (created.client === undefined) throw new Error('CreateClient answered without a client');
        await render(req, res, open, 201, { created: { kind: 'client', client: created.client, secret: created.clientSecret } });
      } catch (error) {
        const rejected = validationProblems(error);
        if (rejected === undefined) throw error;
        await render(req, res, open, rejected.status, { errors: rejected.problems });
      }
    }),
  );

  app.post(
    '/developer/apps/delete',
    pages.handle('/developer/apps/delete', async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      const open = requireSignedIn(session);
      try {
        await users.deleteClient({ clientId: form.get('client_id') ?? '' }, { caller: pages.caller(req, open) });
      } catch (error) {
        if (!(isAppError(error) && error.code === ErrorCode.NOT_FOUND)) throw error;
        return render(req, res, open, 404, { errors: ['There is no such application among yours.'] });
      }
      sendRedirect(res, DEFAULT_RETURN_TO);
    }),
  );

  app.post(
    '/developer/tokens',
    pages.handle('/developer/tokens', async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      const open = requireSignedIn(session);
      const name = (form.get('name') ?? '').trim();
      const scopes = form.getAll('scope');
      const days = Number(form.get('lifetime_days') ?? '90');
      // No scope at all is allowed: such a token reads public data and resolves `me`.
      if (!scopes.every(isScope)) return render(req, res, open, 400, { errors: ['Choose scopes from the list.'] });
      if (!(TOKEN_LIFETIMES_DAYS as readonly number[]).includes(days)) return render(req, res, open, 400, { errors: ['Choose a lifetime from the list.'] });
      try {
        const created = await users.createPersonalToken(
          { name, scopes, ...(days === 0 ? {} : { expiresAt: timestampFromMs(Date.now() + days * 86_400_000) }) },
          { caller: pages.caller(req, open) },
        );
        await render(req, res, open, 201, { created: { kind: 'token', token: created.token, name } });
      } catch (error) {
        const rejected = validationProblems(error);
        if (rejected === undefined) throw error;
        await render(req, res, open, rejected.status, { errors: rejected.problems });
      }
    }),
  );

  app.post(
    '/developer/tokens/revoke',
    pages.handle('/developer/tokens/revoke', async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      const open = requireSignedIn(session);
      const tokenId = form.get('token_id') ?? '';
      if (!isId(tokenId)) return render(req, res, open, 400, { errors: ['There is no such token among yours.'] });
      try {
        await users.revokePersonalToken({ tokenId }, { caller: pages.caller(req, open) });
      } catch (error) {
        if (!(isAppError(error) && error.code === ErrorCode.NOT_FOUND)) throw error;
        return render(req, res, open, 404, { errors: ['There is no such token among yours.'] });
      }
      sendRedirect(res, DEFAULT_RETURN_TO);
    }),
  );
}

function requireSignedIn(open: { id: string; session: { userId: string | undefined; userName: string | undefined } }): SignedInSession {
  if (open.session.userId === undefined || open.session.userName === undefined) throw new PageError(403, 'Sign in first', 'Sign in to manage your applications and tokens.');
  return open as SignedInSession;
}

/**
 * The client-facing problems of a rejected create request, with the page's status: 400 for
 * invalid values, 409 for a taken value or a per-user cap the users service enforces (apps per
 * owner, active personal tokens: docs/api/accounts.md); undefined when the error is neither.
 */
function validationProblems(error: unknown): { status: number; problems: string[] } | undefined {
  if (!isAppError(error) || (error.code !== ErrorCode.INVALID_ARGUMENT && error.code !== ErrorCode.ALREADY_EXISTS && error.code !== ErrorCode.FAILED_PRECONDITION)) return undefined;
  const problems = error.details.length === 0 ? [error.message] : error.details.map((detail) => detail.detail ?? error.message);
  return { status: error.code === ErrorCode.INVALID_ARGUMENT ? 400 : 409, problems };
}

function date(timestamp: Timestamp | undefined): string {
  return timestamp === undefined ? 'never' : timestampDate(timestamp).toISOString().slice(0, 10);
}

function developerPage(view: { open: SignedInSession; clients: readonly OAuthClient[]; tokens: readonly PersonalToken[]; issuer: string; created?: Created; errors?: readonly string[] }): SafeHtml {
  const csrf = view.open.session.csrf;
  const csrfField = html`<input type="hidden" name="csrf_token" value="${csrf}">`;
  const created = view.created;
  return layout(
    'Developer',
    html`${view.errors !== undefined && html`<div class="error" role="alert"><ul>${view.errors.map((problem) => html`<li>${problem}</li>`)}</ul></div>`}
${
  created?.kind === 'client' &&
  html`<div class="notice" id="created-client"><p>Application <strong>${created.client.name}</strong> created.</p>
<p>client_id: <code class="secret" id="client-id">${created.client.id}</code></p>
${created.secret !== '' ? html`<p>client_secret (shown only now; store it safely):</p><code class="secret" id="client-secret">${created.secret}</code>` : html`<p>A public client has no secret: it must use PKCE (S256).</p>`}</div>`
}
${
  created?.kind === 'token' &&
  html`<div class="notice" id="created-token"><p>Personal access token <strong>${created.name}</strong> created. Copy it now: it is shown only once.</p>
<code class="secret" id="token-value">${created.token}</code><p class="muted">Use it as <code>Authorization: Bearer &lt;token&gt;</code> on ${view.issuer}/api/v1.</p></div>`
}
<p class="muted">Authorization server: ${view.issuer} (metadata at /.well-known/oauth-authorization-server). Apps you authorized to act for you: <a href="/authorizations">authorized apps</a>.</p>
<h2>Your applications</h2>
${
  view.clients.length === 0
    ? html`<p>None yet.</p>`
    : html`<table id="clients"><tr><th>Name</th><th>client_id</th><th>Type</th><th>Redirect URIs</th><th>Allowed origins</th><th></th></tr>
${view.clients.map(
  (client) => html`<tr><td>${client.name}</td><td><code>${client.id}</code></td><td>${client.confidential ? 'confidential' : 'public'}</td><td>${client.redirectUris.map((uri) => html`<div>${uri}</div>`)}</td><td>${client.allowedOrigins.map((origin) => html`<div>${origin}</div>`)}</td>
<td><a href="${WEBHOOKS_PAGE}?client_id=${client.id}">Webhooks</a>
<form method="post" action="/developer/apps/delete">${csrfField}<input type="hidden" name="client_id" value="${client.id}"><button type="submit">Delete</button></form></td></tr>`,
)}</table>`
}
<h2>Register an application</h2>
<form method="post" action="/developer/apps">${csrfField}
<label for="app-name">Name</label><input type="text" id="app-name" name="name" required maxlength="100">
<label for="redirect-uris">Redirect URIs (one per line, matched exactly)</label><textarea id="redirect-uris" name="redirect_uris" rows="3" required></textarea>
<label for="allowed-origins">Allowed origins of a browser app (one per line, e.g. https://app.example.com; may call the API and the token endpoints from there)</label><textarea id="allowed-origins" name="allowed_origins" rows="2"></textarea>
<label>Type</label>
<div><input type="radio" id="type-confidential" name="type" value="confidential" checked> <label class="inline" for="type-confidential">Confidential (a server that can keep a secret)</label></div>
<div><input type="radio" id="type-public" name="type" value="public"> <label class="inline" for="type-public">Public (browser or mobile app; uses PKCE, no secret)</label></div>
<button type="submit">Register</button></form>
<h2>Personal access tokens</h2>
${
  view.tokens.length === 0
    ? html`<p>None yet.</p>`
    : html`<table id="tokens"><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Expires</th><th></th></tr>
${view.tokens.map(
  (token) => html`<tr><td>${token.name}</td><td>${token.scopes.join(' ')}</td><td>${date(token.dateCreated)}</td><td>${date(token.expiresAt)}</td>
<td><form method="post" action="/developer/tokens/revoke">${csrfField}<input type="hidden" name="token_id" value="${token.id}"><button type="submit">Revoke</button></form></td></tr>`,
)}</table>`
}
<h2>Create a personal access token</h2>
<form method="post" action="/developer/tokens">${csrfField}
<label for="token-name">Name</label><input type="text" id="token-name" name="name" required maxlength="100">
<label>Scopes</label>
${SCOPE_NAMES.map((scope) => html`<div><input type="checkbox" id="scope-${scope}" name="scope" value="${scope}"> <label class="inline" for="scope-${scope}"><code>${scope}</code>: ${SCOPES[scope]}</label></div>`)}
<label for="lifetime">Expires after</label><select id="lifetime" name="lifetime_days">${TOKEN_LIFETIMES_DAYS.map((days) => html`<option value="${days}"${days === 90 ? html` selected` : ''}>${days === 0 ? 'never' : `${days} days`}</option>`)}</select>
<button type="submit">Create token</button></form>`,
    { name: view.open.session.userName, csrf },
  );
}
