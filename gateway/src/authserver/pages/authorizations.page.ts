import type { ServerResponse } from 'node:http';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { Authorization, UsersService } from '@inkwell/proto/users';
import type { EgApp } from '../../eg/eg.types.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { CLIENT_ID_PATTERN } from '../../routing/route.types.js';
import { html, layout, sendPage, sendRedirect, type SafeHtml } from './html.js';
import type { PageContext, SignedInSession } from './page-context.js';
import { AUTHORIZATIONS_PAGE, signInUrl } from './return-to.js';

/** The users-service calls of the authorized-apps page. */
export type AuthorizationsUsersClient = Pick<GrpcClient<typeof UsersService>, 'listAuthorizations' | 'revokeAuthorization'>;

/** What the authorized-apps page needs. */
export interface AuthorizationsPageDeps {
  readonly pages: PageContext;
  readonly users: AuthorizationsUsersClient;
}

/** Apps the page lists at most (pages of the RPC's largest size); the API lists them all, by cursor. */
const LISTED_APPS_MAX = 500;

/**
 * `/authorizations`, for signed-in users only (others are sent to sign in first): the apps they
 * authorized (docs/api/accounts.md, "Authorized apps"), each with its scopes, when it was granted
 * and last used, and a button that revokes it (`POST /authorizations/revoke`: every token of the
 * app for the user stops working at once, on every gateway). The form carries the session's CSRF
 * token. The users service is called as the session's user with no app, the user themself
 * (the RPCs' first_party access), holding the scope each RPC needs: a signed-in session may do
 * anything about its own account.
 */
export function registerAuthorizationsPage(app: EgApp, { pages, users }: AuthorizationsPageDeps): void {
  const callerOf = (req: GatewayRequest, open: SignedInSession, scope: 'read_user' | 'write_user'): CallerContext => ({ ...pages.caller(req, open), scopes: [scope] });

  const render = async (req: GatewayRequest, res: ServerResponse, open: SignedInSession, status: number, notice?: { revoked?: string; error?: string }): Promise<void> => {
    const listed: Authorization[] = [];
    let after = '';
    do {
      const page = await users.listAuthorizations({ userId: open.session.userId, pageSize: 100, after }, { caller: callerOf(req, open, 'read_user') });
      listed.push(...page.authorizations);
      after = page.nextAfter;
    } while (after !== '' && listed.length < LISTED_APPS_MAX);
    sendPage(res, status, authorizationsPage({ open, authorizations: listed, more: after !== '', ...notice }));
  };

  app.get(
    AUTHORIZATIONS_PAGE,
    pages.handle(AUTHORIZATIONS_PAGE, async (req, res) => {
      const open = await pages.session(req);
      if (open?.session.userId === undefined || open.session.userName === undefined) return sendRedirect(res, signInUrl(AUTHORIZATIONS_PAGE));
      await render(req, res, open as SignedInSession, 200);
    }),
  );

  app.post(
    `${AUTHORIZATIONS_PAGE}/revoke`,
    pages.handle(`${AUTHORIZATIONS_PAGE}/revoke`, async (req, res) => {
      const { form, session } = await pages.verifiedForm(req);
      if (session.session.userId === undefined || session.session.userName === undefined) return sendRedirect(res, signInUrl(AUTHORIZATIONS_PAGE));
      const open = session as SignedInSession;
      const clientId = form.get('client_id') ?? '';
      const missing = 'There is no such app among those you authorized.';
      if (!CLIENT_ID_PATTERN.test(clientId)) return render(req, res, open, 404, { error: missing });
      try {
        const { authorization } = await users.revokeAuthorization({ userId: open.session.userId, clientId }, { caller: callerOf(req, open, 'write_user') });
        await render(req, res, open, 200, { revoked: authorization?.appName ?? clientId });
      } catch (error) {
        if (!(isAppError(error) && error.code === ErrorCode.NOT_FOUND)) throw error;
        await render(req, res, open, 404, { error: missing });
      }
    }),
  );
}

function date(timestamp: Timestamp | undefined): string {
  return timestamp === undefined ? '' : timestampDate(timestamp).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

function authorizationsPage(view: { open: SignedInSession; authorizations: readonly Authorization[]; more: boolean; revoked?: string; error?: string }): SafeHtml {
  const csrf = view.open.session.csrf;
  return layout(
    'Apps you authorized',
    html`${view.error !== undefined && html`<div class="error" role="alert"><p>${view.error}</p></div>`}
${view.revoked !== undefined && html`<div class="notice" id="revoked"><p>Access of <strong>${view.revoked}</strong> revoked: its tokens no longer work.</p></div>`}
<p class="muted">Apps you let act in your name. Revoking one stops all its tokens at once; it can ask you again later. Your own applications and tokens are on the <a href="/developer">developer page</a>.</p>
${
  view.authorizations.length === 0
    ? html`<p>None.</p>`
    : html`<table id="authorizations"><tr><th>App</th><th>Scopes</th><th>Authorized</th><th>Last used</th><th></th></tr>
${view.authorizations.map(
  (authorization) => html`<tr><td>${authorization.appName}</td><td>${authorization.scopes.join(' ')}</td><td>${date(authorization.dateGranted)}</td><td>${date(authorization.dateLastUsed)}</td>
<td><form method="post" action="${AUTHORIZATIONS_PAGE}/revoke"><input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="client_id" value="${authorization.clientId}"><button type="submit">Revoke</button></form></td></tr>`,
)}</table>`
}
${view.more && html`<p class="muted">Only the first ${LISTED_APPS_MAX} are shown here; GET /api/v1/users/me/authorizations lists them all.</p>`}`,
    { name: view.open.session.userName, csrf },
  );
}
