import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DOCS_CLIENT, docsClientRedirectUri, SCOPE_NAMES } from '@inkwell/auth-tokens';
import type { EgApp } from '../eg/eg.types.js';
import { etagMatches, strongEtag } from '../cache/etag.js';
import { DOCS_PATH } from '../jsonapi/error-links.js';
import { API_ERROR_CODES, type ApiErrorCode } from '../jsonapi/error.mapping.js';
import { escapeHtml, html, raw, type SafeHtml } from '../authserver/pages/html.js';
import type { OpenApiObject } from '../openapi/openapi.document.js';
import { loadDocPages, SERVED_FOLDERS, type DocPage } from './doc-pages.js';

/** Where GET serves the API document (docs/api/reference.md). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** The files of swagger-ui-dist the pages use, by the name they are served under, with their media type. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
};

/** How long browsers and shared caches may reuse the pages and the document before revalidating them (with their ETag). */
const PAGE_CACHE_CONTROL = 'public, max-age=300';
/** The same, for the assets: they change only with the gateway's version. */
const ASSET_CACHE_CONTROL = 'public, max-age=86400';

/**
 * Our own start-up script (the page allows no inline script): renders the document into
 * #swagger-ui, with "Authorize" set up for the docs client (authorization code with PKCE, no
 * secret; its redirect is the oauth2-redirect page under PUBLIC_BASE_URL, the URI the users
 * service registered for it).
 */
function initialiser(publicBaseUrl: string): string {
  const bundle = { url: OPENAPI_PATH, dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, validatorUrl: null, oauth2RedirectUrl: docsClientRedirectUri(publicBaseUrl) };
  const oauth = { clientId: DOCS_CLIENT.id, appName: DOCS_CLIENT.name, usePkceWithAuthorizationCodeGrant: true, scopeSeparator: ' ', scopes: [...SCOPE_NAMES] };
  return `window.addEventListener('load', function () {
  var ui = SwaggerUIBundle(${JSON.stringify(bundle)});
  ui.initOAuth(${JSON.stringify(oauth)});
  window.ui = ui;
});
`;
}

/**
 * What the reference page needs and nothing more (docs/api/reference.md): our own scripts,
 * styles and images, `data:` images (Swagger UI's icons), fetches of the document, of the token
 * endpoint and of the API ("Try it out") from the same origin; no inline script or style, no
 * framing, forms, plugins or base changes.
 */
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The documentation pages and error pages: our stylesheet, nothing that runs. */
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const SWAGGER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inkwell API reference</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head><body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/assets/initialiser.js"></script>
</body></html>
`;

/** Swagger UI's redirect page, with its script as a file of ours (no inline script). */
const OAUTH2_REDIRECT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing in to the Inkwell API reference</title></head>
<body><script src="${DOCS_PATH}/assets/oauth2-redirect.js"></script></body></html>
`;

const DOCS_STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:0 auto;padding:0 1rem 3rem;color:#1d1d1f}
header{border-bottom:1px solid #ddd;padding:.75rem 0;margin-bottom:1rem}header a{margin-right:1rem}
h1{font-size:1.7rem}h2{font-size:1.3rem;margin-top:2rem}h3{font-size:1.1rem}
code{background:#f4f4f4;padding:0 .2rem;border-radius:3px;font-size:.92em}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}pre code{padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{text-align:left;padding:.3rem .6rem;border:1px solid #ddd;vertical-align:top}
blockquote{border-left:3px solid #ddd;margin-left:0;padding-left:1rem;color:#555}a{color:#0a58ca}
`;

/** A served response body with its media type, validator and caching. */
interface Served {
  readonly type: string;
  readonly body: Buffer;
  readonly etag: string;
  readonly headers: Readonly<Record<string, string>>;
}

function served(type: string, body: string | Buffer, headers: Readonly<Record<string, string>>): Served {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { type, body: bytes, etag: strongEtag(bytes), headers };
}

/** What the documentation routes need besides the API document. */
export interface DocsRoutesOptions {
  /** PUBLIC_BASE_URL: the docs client's redirect URI derives from it. */
  readonly publicBaseUrl: string;
  /** The served Markdown pages (default: every page of the repository's docs/, see loadDocPages). */
  readonly pages?: ReadonlyMap<string, DocPage>;
}

/**
 * Registers the self-description of the API on express-gateway's app, before the API pipeline
 * (so no token is needed; docs/api/reference.md): `GET /api/v1/openapi.json` (the generated
 * document), `GET /docs` (Swagger UI from swagger-ui-dist, no CDN, with its own CSP and
 * "Authorize" through the docs client), `/docs/oauth2-redirect.html` (where that authorization
 * comes back), `/docs/assets/<file>`, the documentation pages rendered from docs/ (`/docs/api`,
 * `/docs/api/<page>`, `/docs/guide/<page>`, …) and `GET /docs/errors/<code>` (one page per error
 * code, the target of every error's `links.about`). Everything is built once here and answered
 * with an `ETag` (304 to a matching `If-None-Match`) and `Cache-Control: public`. Unknown pages,
 * assets and codes are 404 pages.
 */
export function registerDocsRoutes(app: EgApp, document: OpenApiObject, options: DocsRoutesOptions): void {
  const pages = options.pages ?? loadDocPages();
  const pageHeaders = { 'Content-Security-Policy': PAGE_CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin', 'Cache-Control': PAGE_CACHE_CONTROL };
  const nav = navigation(pages);
  const routes = new Map<string, Served>();
  routes.set(OPENAPI_PATH, served('application/json; charset=utf-8', JSON.stringify(document), { 'Cache-Control': PAGE_CACHE_CONTROL }));
  routes.set(DOCS_PATH, served('text/html; charset=utf-8', SWAGGER_PAGE, { ...pageHeaders, 'Content-Security-Policy': DOCS_CSP }));
  routes.set(`${DOCS_PATH}/oauth2-redirect.html`, served('text/html; charset=utf-8', OAUTH2_REDIRECT_PAGE, { ...pageHeaders, 'Content-Security-Policy': DOCS_CSP, 'Cache-Control': 'no-store' }));
  for (const [name, type] of Object.entries(ASSETS)) routes.set(`${DOCS_PATH}/assets/${name}`, served(type, readFileSync(join(SWAGGER_UI_DIR, name)), { 'Cache-Control': ASSET_CACHE_CONTROL }));
  routes.set(`${DOCS_PATH}/assets/initialiser.js`, served('text/javascript; charset=utf-8', initialiser(options.publicBaseUrl), { 'Cache-Control': PAGE_CACHE_CONTROL }));
  routes.set(`${DOCS_PATH}/assets/docs.css`, served('text/css; charset=utf-8', DOCS_STYLE, { 'Cache-Control': ASSET_CACHE_CONTROL }));
  for (const page of pages.values()) routes.set(page.path, served('text/html; charset=utf-8', docsLayout(page.title, raw(page.html), nav).value, pageHeaders));
  for (const [path, index] of folderIndexes(pages)) routes.set(path, served('text/html; charset=utf-8', docsLayout(index.title, index.body, nav).value, pageHeaders));
  for (const code of Object.keys(API_ERROR_CODES) as ApiErrorCode[]) routes.set(`${DOCS_PATH}/errors/${code}`, served('text/html; charset=utf-8', errorPage(code, nav).value, pageHeaders));
  const notFound = served('text/html; charset=utf-8', docsLayout('Not found', html`<p>There is no such page.</p><p><a href="${DOCS_PATH}">The API reference</a></p>`, nav).value, { ...pageHeaders, 'Cache-Control': 'no-store' });

  app.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path !== OPENAPI_PATH && path !== DOCS_PATH && !path.startsWith(`${DOCS_PATH}/`)) return next();
    const found = routes.get(path.length > DOCS_PATH.length && path.endsWith('/') ? path.slice(0, -1) : path);
    if (found === undefined) return send(req, res, 404, notFound, false);
    send(req, res, 200, found, true);
  });
}

/** The links at the top of every documentation page: the reference, and the index of each served folder. */
function navigation(pages: ReadonlyMap<string, DocPage>): SafeHtml {
  const folders = SERVED_FOLDERS.filter((folder) => [...pages.values()].some((page) => page.file.startsWith(`${folder}/`)));
  const titles: Record<string, string> = { api: 'API documentation', guide: 'Guide' };
  return html`<header><nav><a href="${DOCS_PATH}">API reference (try it)</a>${folders.map((folder) => html`<a href="${DOCS_PATH}/${folder}">${titles[folder] ?? folder}</a>`)}</nav></header>`;
}

/** An index page for each served folder that has pages but no `docs/<folder>.md`: the list of its pages. */
function folderIndexes(pages: ReadonlyMap<string, DocPage>): Map<string, { title: string; body: SafeHtml }> {
  const indexes = new Map<string, { title: string; body: SafeHtml }>();
  for (const folder of SERVED_FOLDERS) {
    const path = `${DOCS_PATH}/${folder}`;
    const inFolder = [...pages.values()].filter((page) => page.file.startsWith(`${folder}/`));
    if (pages.has(path) || inFolder.length === 0) continue;
    const title = folder === 'guide' ? 'Guide' : folder;
    indexes.set(path, { title, body: html`<h1>${title}</h1><ul>${inFolder.map((page) => html`<li><a href="${page.path}">${page.title}</a></li>`)}</ul>` });
  }
  return indexes;
}

function docsLayout(title: string, body: SafeHtml, nav: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Inkwell API</title><link rel="stylesheet" href="${DOCS_PATH}/assets/docs.css"><link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png"></head>
<body>${nav}<main>
${body}
</main></body></html>`;
}

function errorPage(code: ApiErrorCode, nav: SafeHtml): SafeHtml {
  const kind = API_ERROR_CODES[code];
  return docsLayout(
    `Error ${code}`,
    html`<h1>Error <code>${code}</code></h1>
<p><strong>HTTP ${kind.status}</strong> · ${kind.title}</p>
<p>${raw(inlineCode(kind.about))}</p>
<p>Every error of the API is a JSON:API error object with this <code>code</code>; <code>source</code> says where the problem is, and <code>X-Request-Id</code> identifies the request (<a href="${DOCS_PATH}/api/foundation#errors">how errors work</a>). <a href="${DOCS_PATH}">The API reference</a> lists which endpoints answer it.</p>`,
    nav,
  );
}

/** Escapes `text` and turns `backticked` parts into <code>. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function send(req: IncomingMessage, res: ServerResponse, status: number, answer: Served, validated: boolean): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', answer.type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (validated) {
    res.setHeader('ETag', answer.etag);
    if (etagMatches(req.headers['if-none-match'], answer.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
  }
  res.setHeader('Content-Length', answer.body.length);
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}
