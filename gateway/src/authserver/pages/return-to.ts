/** Where signing in leads when no (acceptable) return_to was given. */
export const DEFAULT_RETURN_TO = '/developer';

/** The page of the apps the signed-in user authorized (authorizations.page.ts). */
export const AUTHORIZATIONS_PAGE = '/authorizations';

/**
 * The local page to go to after signing in or up: only an authorization request of ours
 * (`/oauth/authorize?...`), the developer page or the authorized-apps page. Anything else, in particular absolute URLs,
 * scheme-relative `//host` paths and backslash tricks, becomes the developer page, so the
 * sign-in page can never be used as an open redirect.
 */
export function safeReturnTo(value: string | null | undefined): string {
  if (value === null || value === undefined || value.length > 4096) return DEFAULT_RETURN_TO;
  if (value.includes('\\') || hasControlCharacter(value)) return DEFAULT_RETURN_TO;
  if (value === DEFAULT_RETURN_TO || value === AUTHORIZATIONS_PAGE || value.startsWith('/oauth/authorize?')) return value;
  return DEFAULT_RETURN_TO;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The sign-in page URL that comes back to `returnTo` afterwards. */
export function signInUrl(returnTo: string): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}`;
}
