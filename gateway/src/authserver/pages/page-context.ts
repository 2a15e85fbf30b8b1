import type { ServerResponse } from 'node:http';
import { isAppError, ErrorCode } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { GatewayRequest } from '../../http/request-state.js';
import { readFormBody, FormBodyError } from './form-body.reader.js';
import { html, layout, sendPage } from './html.js';
import { pageCookie, readCookie, sessionCookie, SESSION_COOKIE, type CookiePolicy } from './session.cookie.js';
import { csrfMatches, type OpenSession, type SessionStore } from './session.store.js';
import { isVisitorNonce, newVisitorNonce, VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_SECONDS, visitorCsrfMatches, visitorCsrfToken, type VisitorCsrfKey } from './visitor-csrf.js';

/** A failure a page shows to the person in front of it, with its HTTP status. */
export class PageError extends Error {
  override readonly name = 'PageError';
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** What every page needs: sessions, the visitors' CSRF key, the cookie policy, the public origin, logging. */
export interface PageContextDeps {
  readonly sessions: SessionStore;
  readonly visitorCsrfKey: VisitorCsrfKey;
  readonly cookies: CookiePolicy;
  /** PUBLIC_BASE_URL (no trailing slash). */
  readonly publicBaseUrl: string;
  readonly logger: Logger;
}


/** A signed-in session (every session is one: visitors have none). */
export type SignedInSession = OpenSession;

/** Session and form plumbing shared by the sign-in, sign-up, consent and developer pages. */
export interface PageContext {
  /** The request's (signed-in) session, if its cookie names a live one. */
  session(req: GatewayRequest): Promise<OpenSession | undefined>;
  /**
   * The CSRF token of a form shown before sign-in (sign-in, sign-up): the HMAC of the visitor
   * cookie's nonce under the server key, setting a new nonce cookie on `res` when the request
   * has none. Stateless: nothing is written to Redis.
   */
  visitorCsrf(req: GatewayRequest, res: ServerResponse): Promise<string>;
  /** Replaces the request's session with a new signed-in one (new id and CSRF token) and sets its cookie. */
  signIn(req: GatewayRequest, res: ServerResponse, user: { readonly id: string; readonly name: string }): Promise<OpenSession>;
  /** Ends the request's session and deletes its cookie. */
  signOut(req: GatewayRequest, res: ServerResponse): Promise<void>;
  /**
   * Reads a posted form and checks it came from one of our pages: the `Origin` header, when
   * sent and not `null`, must be our public origin or the request's own host, and the form's
   * `csrf_token` must equal the session's. Throws PageError 403 otherwise (also when the
   * session expired).
   */
  verifiedForm(req: GatewayRequest): Promise<{ readonly form: URLSearchParams; readonly session: OpenSession }>;
  /**
   * Like verifiedForm, for the forms shown before sign-in: the form's `csrf_token` must be the
   * visitor token of the request's visitor cookie (see visitorCsrf). Throws PageError 403 otherwise.
   */
  verifiedVisitorForm(req: GatewayRequest): Promise<URLSearchParams>;
  /** The caller to send to the users service on behalf of a page request. */
  caller(req: GatewayRequest, session?: OpenSession): CallerContext;
  /** Runs a page handler, answering PageError, form-body errors and service failures with an error page. */
  handle(route: string, handler: (req: GatewayRequest, res: ServerResponse) => Promise<void>): (req: GatewayRequest, res: ServerResponse) => void;
}

/** Builds the page context. */
export function createPageContext(deps: PageContextDeps): PageContext {
  const { sessions, visitorCsrfKey, cookies, logger } = deps;
  const publicOrigin = new URL(deps.publicBaseUrl).origin;
  const expired = (): PageError =>
    new PageError(403, 'Please try again', 'This form has expired or was not sent from an Inkwell page. Go back, reload the page and send it again.');

  /** Refuses a form posted from another site (`Origin`), then reads it. */
  const readOwnForm = async (req: GatewayRequest): Promise<URLSearchParams> => {
    const origin = req.headers.origin;
    // `null` (privacy modes, sandboxed frames) says nothing either way: the CSRF token decides.
    if (origin !== undefined && origin !== 'null' && origin !== publicOrigin && !sameHost(origin, req.headers.host)) {
      throw new PageError(403, 'Request refused', 'This form was sent from another site.');
    }
    return readFormBody(req);
  };

  const context: PageContext = {
    async session(req) {
      const id = readCookie(req, SESSION_COOKIE);
      const session = await sessions.load(id);
      return session === undefined || id === undefined ? undefined : { id, session };
    },

    async visitorCsrf(req, res) {
      let nonce = readCookie(req, VISITOR_COOKIE);
      if (!isVisitorNonce(nonce)) {
        nonce = newVisitorNonce();
        res.setHeader('Set-Cookie', pageCookie(VISITOR_COOKIE, nonce, VISITOR_COOKIE_MAX_AGE_SECONDS, req, cookies));
      }
      return visitorCsrfToken(await visitorCsrfKey.get(), nonce);
    },

    async signIn(req, res, user) {
      await sessions.destroy(readCookie(req, SESSION_COOKIE));
      const opened = await sessions.open(user);
      res.setHeader('Set-Cookie', sessionCookie(opened.id, sessions.ttlSeconds, req, cookies));
      return opened;
    },

    async signOut(req, res) {
      await sessions.destroy(readCookie(req, SESSION_COOKIE));
      res.setHeader('Set-Cookie', sessionCookie('', 0, req, cookies));
    },

    async verifiedForm(req) {
      const form = await readOwnForm(req);
      const session = await context.session(req);
      if (session === undefined || !csrfMatches(session.session, form.get('csrf_token'))) throw expired();
      return { form, session };
    },

    async verifiedVisitorForm(req) {
      const form = await readOwnForm(req);
      if (!visitorCsrfMatches(await visitorCsrfKey.get(), readCookie(req, VISITOR_COOKIE), form.get('csrf_token'))) throw expired();
      return form;
    },

    caller(req, session) {
      const requestId = req.inkwell?.requestId ?? 'page';
      const userId = session?.session.userId;
      return userId === undefined ? { requestId, scopes: [] } : { requestId, userId, scopes: [] };
    },

    handle(route, handler) {
      return (req, res) => {
        if (req.inkwell !== undefined) req.inkwell.route = route;
        handler(req, res).catch((error: unknown) => {
          const page = errorPage(error);
          if (page.status >= 500) logger[page.status === 503 ? 'warn' : 'error']({ err: error, requestId: req.inkwell?.requestId, route }, 'page failed');
          if (!req.complete) res.setHeader('Connection', 'close');
          sendPage(res, page.status, layout(page.title, html`<p class="error">${page.message}</p>`));
        });
      };
    },
  };
  return context;
}

function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

function errorPage(error: unknown): { status: number; title: string; message: string } {
  if (error instanceof PageError) return { status: error.status, title: error.title, message: error.message };
  if (error instanceof FormBodyError) return { status: error.status, title: 'Request refused', message: error.message };
  if (isAppError(error) && (error.code === ErrorCode.UNAVAILABLE || error.code === ErrorCode.DEADLINE_EXCEEDED)) {
    return { status: 503, title: 'Temporarily unavailable', message: 'A service Inkwell depends on is not answering. Please try again in a moment.' };
  }
  return { status: 500, title: 'Something went wrong', message: 'An unexpected error occurred. It has been logged.' };
}
