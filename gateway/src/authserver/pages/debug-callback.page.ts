import type { EgApp } from '../../eg/eg.types.js';
import { html, layout, sendPage } from './html.js';
import { queryParam } from './signin.page.js';

/** The path of the debug callback (the demo app registers `PUBLIC_BASE_URL` + this as a redirect URI). */
export const DEBUG_CALLBACK_PATH = '/oauth/debug-callback';

/**
 * `GET /oauth/debug-callback`: a redirect URI for trying the authorization code flow by hand
 * (the demo app of `npm run dev` registers it). It shows what the authorization server sent
 * back (`code`, `state`, or `error` with its description) and the curl command that exchanges
 * the code. It only echoes the query string to the browser that brought it; it stores nothing
 * and exchanges nothing itself.
 */
export function registerDebugCallbackPage(app: EgApp, issuer: string): void {
  app.get(DEBUG_CALLBACK_PATH, (req, res) => {
    if (req.inkwell !== undefined) req.inkwell.route = DEBUG_CALLBACK_PATH;
    const code = queryParam(req, 'code');
    const state = queryParam(req, 'state');
    const error = queryParam(req, 'error');
    const redirectUri = issuer + DEBUG_CALLBACK_PATH;
    const body =
      error !== null
        ? html`<p class="error" id="error">${error}: ${queryParam(req, 'error_description') ?? ''}</p>${state !== null && html`<p>state: <code>${state}</code></p>`}`
        : code !== null
          ? html`<p>The authorization server sent this code (valid for two minutes, usable once):</p>
<code class="secret" id="code">${code}</code>
${state !== null && html`<p>state: <code id="state">${state}</code></p>`}
<p>Exchange it (add <code>-d code_verifier=…</code> if the request used PKCE):</p>
<pre class="secret">curl -u '&lt;client_id&gt;:&lt;client_secret&gt;' ${issuer}/oauth/token \\
  -d grant_type=authorization_code -d redirect_uri=${redirectUri} -d code=${code}</pre>`
          : html`<p>Nothing was sent back: this page shows the answer of an authorization request whose redirect_uri is ${redirectUri}.</p>`;
    sendPage(res, error !== null || code === null ? 400 : 200, layout('Authorization answer', body));
  });
}
