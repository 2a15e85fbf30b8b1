import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import { clientAddress } from '../../auth/client-address.js';
import type { EgApp } from '../../eg/eg.types.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { html, layout, sendPage, sendRedirect, type SafeHtml } from './html.js';
import type { PageContext } from './page-context.js';
import type { CredentialThrottle } from '../../ratelimit/credential.throttle.js';
import type { RateLimitWindow } from '../../ratelimit/fixed-window.limiter.js';
import { safeReturnTo } from './return-to.js';

/** What the account pages need. */
export interface AccountPagesDeps {
  readonly pages: PageContext;
  readonly users: Pick<GrpcClient<typeof UsersService>, 'authenticate' | 'registerUser'>;
  /** The per-address and per-(login, address) budgets of sign-in and sign-up. */
  readonly throttle: CredentialThrottle;
  /** Believe X-Forwarded-For for the client address (see clientAddress). */
  readonly trustProxy: boolean;
}

/**
 * The account pages: `GET/POST /signin`, `GET/POST /signup`, `POST /signout`. Both forms carry
 * the stateless visitor CSRF token (PageContext.visitorCsrf: showing them writes nothing to
 * Redis) and a `return_to` (see safeReturnTo) that leads back to the
 * authorization request that sent the visitor here. Signing in or up opens a new session (new
 * id, new CSRF token) and redirects (303) to `return_to`. Wrong credentials are one message
 * for an unknown login and a wrong password alike (400); the users service's back-off after
 * repeated failures is a 429 with Retry-After. A signed-in visitor of /signin or /signup goes
 * straight on to `return_to`.
 *
 * Before the users service is asked, each attempt is counted by its source (CredentialThrottle,
 * docs/api/auth.md, "Credentials endpoints"): on the client address's window (sign-in and sign-up
 * alike; over it: 429 with Retry-After) and, for a sign-in, on the window of that login from that
 * address (over it: 429 too; a successful sign-in resets it). So a stranger's failures slow the
 * stranger, not the account's owner signing in from elsewhere. The address also goes to the
 * users service with the sign-in: its per-account lock spares addresses that have not tried the
 * login since their last success (docs/api/accounts.md, "Sign-in").
 */
export function registerAccountPages(app: EgApp, { pages, users, throttle, trustProxy }: AccountPagesDeps): void {
  app.get(
    '/signin',
    pages.handle('/signin', async (req, res) => {
      const returnTo = safeReturnTo(queryParam(req, 'return_to'));
      if ((await pages.session(req)) !== undefined) return sendRedirect(res, returnTo);
      sendPage(res, 200, signInPage({ csrf: await pages.visitorCsrf(req, res), returnTo }));
    }),
  );

  app.post(
    '/signin',
    pages.handle('/signin', async (req, res) => {
      const form = await pages.verifiedVisitorForm(req);
      const csrf = form.get('csrf_token') as string;
      const returnTo = safeReturnTo(form.get('return_to'));
      const login = (form.get('login') ?? '').trim();
      const password = form.get('password') ?? '';
      const again = (status: number, message: string, headers?: Record<string, string>): void =>
        sendPage(res, status, signInPage({ csrf, returnTo, login, error: message }), { headers });
      if (login === '' || password === '') return again(400, 'Enter your name or e-mail address and your password.');
      const address = clientAddress(req, trustProxy);
      const tooMany = (window: RateLimitWindow | undefined): boolean => {
        if (window?.exceeded !== true) return false;
        again(429, `Too many attempts. Try again in ${window.resetSeconds} seconds.`, { 'Retry-After': String(window.resetSeconds) });
        return true;
      };
      if (tooMany(await throttle.attempt(address)) || tooMany(await throttle.signInAttempt(address, login))) return;
      let retryAfter: unknown;
      try {
        const { user } = await users.authenticate({ login, password, clientAddress: address }, { caller: pages.caller(req), onResponseHeaders: (metadata) => (retryAfter = metadata.get('retry-after')[0]) });
        if (user === undefined) throw new Error('Authenticate answered without a user');
        await throttle.signedIn(address, login);
        await pages.signIn(req, res, { id: user.id, name: user.name });
        sendRedirect(res, returnTo);
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.UNAUTHENTICATED) return again(400, 'That name or e-mail address and password do not match an account.');
        if (isAppError(error) && error.code === ErrorCode.RESOURCE_EXHAUSTED) {
          const seconds = retryAfterSeconds(retryAfter);
          return again(429, `Too many failed attempts. Try again in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
        }
        throw error;
      }
    }),
  );

  app.get(
    '/signup',
    pages.handle('/signup', async (req, res) => {
      const returnTo = safeReturnTo(queryParam(req, 'return_to'));
      if ((await pages.session(req)) !== undefined) return sendRedirect(res, returnTo);
      sendPage(res, 200, signUpPage({ csrf: await pages.visitorCsrf(req, res), returnTo }));
    }),
  );

  app.post(
    '/signup',
    pages.handle('/signup', async (req, res) => {
      const form = await pages.verifiedVisitorForm(req);
      const csrf = form.get('csrf_token') as string;
      const returnTo = safeReturnTo(form.get('return_to'));
      const name = (form.get('name') ?? '').trim();
      const email = (form.get('email') ?? '').trim();
      const password = form.get('password') ?? '';
      const window = await throttle.attempt(clientAddress(req, trustProxy));
      if (window?.exceeded === true) {
        const errors = [`Too many attempts. Try again in ${window.resetSeconds} seconds.`];
        return sendPage(res, 429, signUpPage({ csrf, returnTo, name, email, errors }), { headers: { 'Retry-After': String(window.resetSeconds) } });
      }
      try {
        const { user } = await users.registerUser({ name, email, password }, { caller: pages.caller(req) });
        if (user === undefined) throw new Error('RegisterUser answered without a user');
        await pages.signIn(req, res, { id: user.id, name: user.name });
        sendRedirect(res, returnTo);
      } catch (error) {
        if (isAppError(error) && (error.code === ErrorCode.INVALID_ARGUMENT || error.code === ErrorCode.ALREADY_EXISTS)) {
          const problems = error.details.length > 0 ? error.details.map((detail) => fieldProblem(detail.pointer, detail.detail ?? error.message, error.code)) : [error.message];
          return sendPage(res, error.code === ErrorCode.ALREADY_EXISTS ? 409 : 400, signUpPage({ csrf, returnTo, name, email, errors: problems }));
        }
        throw error;
      }
    }),
  );

  app.post(
    '/signout',
    pages.handle('/signout', async (req, res) => {
      await pages.verifiedForm(req);
      await pages.signOut(req, res);
      sendRedirect(res, '/signin');
    }),
  );
}

/** One query parameter of a page request (the first one). */
export function queryParam(req: GatewayRequest, name: string): string | null {
  const url = req.originalUrl ?? req.url ?? '/';
  const start = url.indexOf('?');
  return start === -1 ? null : new URLSearchParams(url.slice(start + 1)).get(name);
}

/** Seconds a locked sign-in asks to wait (the users service's `retry-after` response header), at least 1; 60 when it says nothing. */
function retryAfterSeconds(header: unknown): number {
  const value = Number(header);
  return Number.isFinite(value) && value >= 1 ? Math.ceil(value) : 60;
}

const FIELD_LABELS: Readonly<Record<string, string>> = { name: 'Name', email: 'E-mail address', password: 'Password' };

function fieldProblem(pointer: string | undefined, detail: string, code: string): string {
  const field = pointer?.split('/').pop();
  const label = field === undefined ? undefined : FIELD_LABELS[field];
  if (code === ErrorCode.ALREADY_EXISTS && label !== undefined) return `${label}: already taken by another account.`;
  return label === undefined ? detail : `${label}: ${detail}`;
}

function signInPage(view: { csrf: string; returnTo: string; login?: string; error?: string }): SafeHtml {
  return layout(
    'Sign in',
    html`${view.error !== undefined && html`<p class="error" role="alert">${view.error}</p>`}
<form method="post" action="/signin">
<input type="hidden" name="csrf_token" value="${view.csrf}">
<input type="hidden" name="return_to" value="${view.returnTo}">
<label for="login">Name or e-mail address</label>
<input type="text" id="login" name="login" autocomplete="username" required value="${view.login ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">No account yet? <a href="/signup?return_to=${encodeURIComponent(view.returnTo)}">Sign up</a></p>`,
  );
}

function signUpPage(view: { csrf: string; returnTo: string; name?: string; email?: string; errors?: readonly string[] }): SafeHtml {
  return layout(
    'Create an account',
    html`${view.errors !== undefined && html`<div class="error" role="alert"><ul>${view.errors.map((problem) => html`<li>${problem}</li>`)}</ul></div>`}
<form method="post" action="/signup">
<input type="hidden" name="csrf_token" value="${view.csrf}">
<input type="hidden" name="return_to" value="${view.returnTo}">
<label for="name">Name</label>
<input type="text" id="name" name="name" autocomplete="username" required maxlength="64" value="${view.name ?? ''}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="email" required value="${view.email ?? ''}">
<label for="password">Password (at least 10 characters)</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="10">
<button type="submit">Create account</button>
</form>
<p class="muted">Already have an account? <a href="/signin?return_to=${encodeURIComponent(view.returnTo)}">Sign in</a></p>`,
  );
}
