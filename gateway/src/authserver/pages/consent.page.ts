import { SCOPES, type Scope } from '@inkwell/auth-tokens';
import { html, layout, type PageViewer, type SafeHtml } from './html.js';

/** What the consent page shows and posts back. */
export interface ConsentView {
  readonly viewer: PageViewer;
  readonly clientName: string;
  readonly clientId: string;
  /** Where the answer goes (shown as its origin, so the person knows who receives it). */
  readonly redirectUri: string;
  /** Whether the request named redirect_uri itself (it is then posted back as sent). */
  readonly redirectUriSent: boolean;
  readonly scopes: readonly Scope[];
  readonly state: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
}

/**
 * The consent page of an authorization request: which application asks, every requested scope
 * with its plain-words explanation (SCOPES of @inkwell/auth-tokens), where the answer goes, and
 * Allow / Deny buttons. The form posts the request back to /oauth/authorize with the session's
 * CSRF token; nothing is decided by a GET.
 */
export function consentPage(view: ConsentView): SafeHtml {
  const destination = originOf(view.redirectUri);
  const hidden = (name: string, value: string | undefined): SafeHtml | false => value !== undefined && html`<input type="hidden" name="${name}" value="${value}">`;
  return layout(
    `Allow ${view.clientName} to use your account?`,
    html`<p><strong>${view.clientName}</strong> would like to use your Inkwell account, <strong>${view.viewer.name}</strong>.</p>
<p>Like every application, it will be able to read what is public on Inkwell: published stories, profiles, public bookshelves and blog posts.</p>
${
  view.scopes.length === 0
    ? html`<p>It asks for <strong>no further permissions</strong>.</p>`
    : html`<p>It also asks to:</p>
<ul class="scopes" id="scopes">${view.scopes.map((scope) => html`<li data-scope="${scope}">${SCOPES[scope]} <span class="muted">(${scope})</span></li>`)}</ul>`
}
<p class="muted">Whatever you decide, you will be sent back to ${destination}.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf_token" value="${view.viewer.csrf}">
<input type="hidden" name="client_id" value="${view.clientId}">
<input type="hidden" name="response_type" value="code">
${hidden('redirect_uri', view.redirectUriSent ? view.redirectUri : undefined)}
${hidden('scope', view.scopes.join(' '))}
${hidden('state', view.state)}
${hidden('code_challenge', view.codeChallenge)}
${hidden('code_challenge_method', view.codeChallengeMethod)}
<button type="submit" name="decision" value="approve" id="approve">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`,
    view.viewer,
  );
}

function originOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.origin === 'null' ? `${url.protocol}` : url.origin;
  } catch {
    return uri;
  }
}
