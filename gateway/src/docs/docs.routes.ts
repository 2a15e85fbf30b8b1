import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { EgApp } from '../eg/eg.types.js';
import { DOCS_PATH } from '../jsonapi/error-links.js';
import { API_ERROR_CODES, type ApiErrorCode } from '../jsonapi/error.mapping.js';
import { escapeHtml, html, layout, raw, sendPage } from '../authserver/pages/html.js';
import type { OpenApiObject } from '../openapi/openapi.document.js';

/** Where GET serves the API document (docs/api/reference.md). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** The files of swagger-ui-dist the page uses, by the name it is served under, with their media type. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Our own start-up script (the page allows no inline script): renders the document into #swagger-ui. */
const INITIALISER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, validatorUrl: null });
});
`;

/**
 * What the reference page needs and nothing more (docs/api/reference.md): our own scripts,
 * styles and images, `data:` images (Swagger UI's icons), fetches of the document from the same
 * origin; no inline script or style, no framing, forms, plugins or base changes.
 */
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE = `<!doctype html>
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

/**
 * Registers the self-description of the API on express-gateway's app, before the API pipeline
 * (so no token is needed): `GET /api/v1/openapi.json` (the generated document, built once),
 * `GET /docs` (Swagger UI from swagger-ui-dist, no CDN, with its own CSP), `/docs/assets/<file>`
 * and `GET /docs/errors/<code>` (one page per error code, the target of every error's
 * `links.about`). Unknown assets and codes are 404 pages.
 */
export function registerDocsRoutes(app: EgApp, document: OpenApiObject): void {
  const documentBody = JSON.stringify(document);
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(SWAGGER_UI_DIR, name)) }]));
  assets.set('initialiser.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INITIALISER) });

  app.get(OPENAPI_PATH, (_req, res) => {
    send(res, 200, 'application/json; charset=utf-8', documentBody, { 'Cache-Control': 'public, max-age=300' });
  });
  app.get(DOCS_PATH, (_req, res) => {
    send(res, 200, 'text/html; charset=utf-8', PAGE, { 'Content-Security-Policy': DOCS_CSP, 'Cache-Control': 'public, max-age=300', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' });
  });
  app.get(`${DOCS_PATH}/assets/:name`, (req, res) => {
    const asset = assets.get((req as unknown as { params: { name: string } }).params.name);
    if (asset === undefined) return notFound(res, 'There is no such file.');
    send(res, 200, asset.type, asset.body, { 'Cache-Control': 'public, max-age=86400' });
  });
  app.get(`${DOCS_PATH}/errors/:code`, (req, res) => {
    const code = (req as unknown as { params: { code: string } }).params.code;
    if (!Object.hasOwn(API_ERROR_CODES, code)) return notFound(res, 'There is no such error code.');
    const kind = API_ERROR_CODES[code as ApiErrorCode];
    sendPage(
      res,
      200,
      layout(
        `Error ${code}`,
        html`<p><strong>HTTP ${kind.status}</strong> · ${kind.title}</p>
<p>${raw(inlineCode(kind.about))}</p>
<p>Every error of the API is a JSON:API error object with this <code>code</code>; <code>source</code> says where the problem is, and <code>X-Request-Id</code> identifies the request. <a href="${DOCS_PATH}">The API reference</a> lists which endpoints answer it.</p>`,
      ),
    );
  });
}

/** Escapes `text` and turns `backticked` parts into <code>. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function notFound(res: ServerResponse, detail: string): void {
  sendPage(res, 404, layout('Not found', html`<p>${detail}</p><p><a href="${DOCS_PATH}">The API reference</a></p>`));
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Readonly<Record<string, string>>): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
