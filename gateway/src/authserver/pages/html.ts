import type { ServerResponse } from 'node:http';

/** Text that is already HTML (built by {@link html} or {@link raw}); anything else is escaped when interpolated. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and (double- or single-quoted) attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

/** A value a template may interpolate: text (escaped), SafeHtml (kept), arrays (joined), or nothing. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

/**
 * Tagged template for pages: every interpolated value is escaped unless it is SafeHtml (the
 * result of another `html` template), arrays are concatenated, and `null`, `undefined` and
 * `false` print nothing (for `cond && html\`...\``). The only way to produce unescaped markup
 * is {@link raw}, for constant strings.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] as string);
  return new SafeHtml(out);
}

/** Marks a constant string as HTML. Never pass user input. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=email],input[type=password],textarea,select{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
button{font:inherit;padding:.5rem 1rem;margin:.75rem .5rem 0 0;cursor:pointer}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.5rem 1rem}
.notice{background:#e8f4fd;border:1px solid #a0c4e0;padding:.5rem 1rem}
.secret{font-family:monospace;word-break:break-all;background:#f4f4f4;padding:.5rem;display:block}
ul.scopes li{margin:.25rem 0}.muted{color:#666;font-size:.9rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
.inline{display:inline}
header{display:flex;justify-content:space-between;align-items:baseline;border-bottom:1px solid #ddd}
`;

/** Who is signed in, for the page header (undefined: nobody). */
export interface PageViewer {
  readonly name: string;
  /** CSRF token for the sign-out form. */
  readonly csrf: string;
}

/** A complete page: title, body and the optional signed-in viewer shown in the header with a sign-out button. */
export function layout(title: string, body: SafeHtml, viewer?: PageViewer): SafeHtml {
  const account =
    viewer === undefined
      ? html``
      : html`<form class="inline" method="post" action="/signout"><span class="muted">Signed in as ${viewer.name}</span>
<input type="hidden" name="csrf_token" value="${viewer.csrf}"><button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin"><title>${title} · Inkwell</title><style>${raw(STYLE)}</style></head>
<body><header><strong>Inkwell</strong>${account}</header><main>
<h1>${title}</h1>
${body}
</main></body></html>`;
}

/**
 * Content-Security-Policy of every page: nothing but our own inline style and same-origin form
 * posts; no scripts at all, no framing (clickjacking a consent button is the classic attack).
 * `formAction` widens form-action for the consent page, whose answer redirects to the client:
 * browsers apply form-action to the redirect after a form post too.
 */
function contentSecurityPolicy(formAction: string): string {
  return `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

/** Options of {@link sendPage}. */
export interface SendPageOptions {
  /** Extra `form-action` sources (the consent page adds the client's redirect origin). */
  readonly formActionSources?: readonly string[];
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * Sends a page with the headers every page has: `Cache-Control: no-store` (pages carry CSRF
 * tokens and secrets shown once), the CSP above, `X-Frame-Options: DENY`,
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin` (authorization URLs carry
 * state and code challenges, which must not leak to other sites; `no-referrer` would also make
 * browsers send `Origin: null` on our own form posts).
 */
export function sendPage(res: ServerResponse, status: number, page: SafeHtml, options: SendPageOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  const body = page.value;
  res.statusCode = status;
  setPageHeaders(res, options.formActionSources);
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value as string | string[]);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A redirect after a form post or to the sign-in page (`303 See Other`, so the next request is a GET). */
export function sendRedirect(res: ServerResponse, location: string, headers?: Readonly<Record<string, string | readonly string[]>>): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = 303;
  setPageHeaders(res, undefined);
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value as string | string[]);
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}

function setPageHeaders(res: ServerResponse, formActionSources: readonly string[] | undefined): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(["'self'", ...(formActionSources ?? [])].join(' ')));
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}
