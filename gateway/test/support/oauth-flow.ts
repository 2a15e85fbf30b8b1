import * as oauth from 'oauth4webapi';
import { elementText, hiddenFields, type WebClient } from './web-client.js';

/** The redirect URI every test app registers; nothing listens there (tests read the Location header; the browser test answers it itself). Not a port browsers refuse. */
export const REDIRECT_URI = 'http://127.0.0.1:65500/callback';

/** Options that let oauth4webapi talk to a plain-http test server. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/** The authorization server as discovered through RFC 8414 metadata. */
export async function discover(origin: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(origin);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
}

/** Signs `web` in through the real sign-in form (GET for the CSRF token, then POST). Returns the Location it was sent to. */
export async function signIn(web: WebClient, login: string, password: string, returnTo = '/developer'): Promise<string> {
  const page = await web.get(`/signin?return_to=${encodeURIComponent(returnTo)}`);
  if (page.status !== 200) throw new Error(`sign-in page answered ${page.status}`);
  const fields = hiddenFields(page.text, '/signin');
  fields.set('login', login);
  fields.set('password', password);
  const answer = await web.post('/signin', fields);
  if (answer.status !== 303 || answer.location === null) throw new Error(`sign-in answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  return answer.location;
}

/** A client registered through the developer page by a signed-in `web`. */
export interface RegisteredClient {
  readonly clientId: string;
  /** Empty for public clients. */
  readonly clientSecret: string;
}

/** Registers an app on /developer (as a person would) and reads its client_id and secret from the answer. */
export async function registerApp(web: WebClient, name: string, type: 'public' | 'confidential', redirectUris: readonly string[] = [REDIRECT_URI], allowedOrigins: readonly string[] = []): Promise<RegisteredClient> {
  const page = await web.get('/developer');
  const fields = hiddenFields(page.text, '/developer/apps');
  fields.set('name', name);
  fields.set('redirect_uris', redirectUris.join('\n'));
  fields.set('allowed_origins', allowedOrigins.join('\n'));
  fields.set('type', type);
  const answer = await web.post('/developer/apps', fields);
  if (answer.status !== 201) throw new Error(`registering an app answered ${answer.status}: ${answer.text.slice(0, 1000)}`);
  return { clientId: elementText(answer.text, 'client-id'), clientSecret: type === 'confidential' ? elementText(answer.text, 'client-secret') : '' };
}

/** What one authorization request through the pages ended with. */
export interface AuthorizationOutcome {
  /** The consent page the person saw. */
  readonly consentHtml: string;
  /** Where the person's browser was sent after deciding. */
  readonly redirect: URL;
}

/**
 * Drives `authorizationUrl` through the pages like a browser: follows the redirect to sign-in
 * (signing in with `login`/`password` when asked), shows the consent page, and answers it with
 * `decision`. `web` may already be signed in.
 */
export async function authorizeThroughPages(web: WebClient, authorizationUrl: URL, login: string, password: string, decision: 'approve' | 'deny' = 'approve'): Promise<AuthorizationOutcome> {
  const path = authorizationUrl.pathname + authorizationUrl.search;
  let consent = await web.get(path);
  if (consent.status === 303 && consent.location?.startsWith('/signin') === true) {
    const back = await signIn(web, login, password, new URL(consent.location, web.origin).searchParams.get('return_to') ?? '');
    if (back !== path) throw new Error(`sign-in returned to ${back}, not ${path}`);
    consent = await web.get(back);
  }
  if (consent.status !== 200) throw new Error(`the consent page answered ${consent.status}: ${consent.location ?? consent.text.slice(0, 500)}`);
  const fields = hiddenFields(consent.text, '/oauth/authorize');
  fields.set('decision', decision);
  const answer = await web.post('/oauth/authorize', fields);
  if (answer.status !== 303 || answer.location === null) throw new Error(`the consent form answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  return { consentHtml: consent.text, redirect: new URL(answer.location) };
}

/** An authorization request URL with PKCE (S256) and state, as oauth4webapi's documentation builds it. */
export async function authorizationRequest(as: oauth.AuthorizationServer, clientId: string, scope: string, pkce = true, redirectUri = REDIRECT_URI): Promise<{ url: URL; state: string; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  if (pkce) {
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return { url, state, verifier };
}
