import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';
import { renderDocument, type DocumentHeading } from '@inkwell/markdown/document';
import { DOCS_PATH } from '../jsonapi/error-links.js';

/** The repository's docs/ folder (the gateway's dist/ and src/ are both two levels below the repository root's gateway/). */
export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** Folders of docs/ whose every page is served, as /docs/<folder>/<page>; docs/<folder>.md is their index, /docs/<folder>. */
export const SERVED_FOLDERS: readonly string[] = ['api', 'guide'];

/** Names under /docs that are not pages: the reference, its assets, the error pages and the OAuth redirect page. */
const RESERVED = new Set(['assets', 'errors', 'oauth2-redirect']);

/** One served documentation page. */
export interface DocPage {
  /** Where it is served, e.g. `/docs/api/lists`. */
  readonly path: string;
  /** Its file under docs/, e.g. `api/lists.md`. */
  readonly file: string;
  /** The text of its first heading (else its file name). */
  readonly title: string;
  /** Sanitised HTML of its body. */
  readonly html: string;
  readonly headings: readonly DocumentHeading[];
}

/**
 * The URL of docs file `file` (relative to docs/, e.g. `api/lists.md`, `api.md`) when it is one
 * of the served pages, else undefined: `<folder>/<page>.md` → `/docs/<folder>/<page>` for the
 * served folders, and `<name>.md` at the top → `/docs/<name>`.
 */
export function docPagePath(file: string): string | undefined {
  const match = /^(?:([a-z0-9-]+)\/)?([a-z0-9][a-z0-9_-]*)\.md$/i.exec(file);
  if (match === null) return undefined;
  const [, folder, name] = match as unknown as [string, string | undefined, string];
  if (folder === undefined) return RESERVED.has(name) ? undefined : `${DOCS_PATH}/${name}`;
  return SERVED_FOLDERS.includes(folder) ? `${DOCS_PATH}/${folder}/${name}` : undefined;
}

/**
 * The served href of link `href` written in docs file `from` (`lists.md#cursors` in
 * `api/auth.md` → `/docs/api/lists#cursors`), or undefined when it leads to no served page (a
 * source file, a page outside docs/): such links are shown as plain text.
 */
export function resolveDocLink(from: string, href: string): string | undefined {
  const hash = href.indexOf('#');
  const target = hash === -1 ? href : href.slice(0, hash);
  const fragment = hash === -1 ? '' : href.slice(hash);
  if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return undefined;
  const resolved = posix.normalize(posix.join(posix.dirname(from), target));
  if (resolved.startsWith('..')) return undefined;
  const path = docPagePath(resolved);
  return path === undefined ? undefined : `${path}${fragment}`;
}

/** The Markdown files of docs/ that are served: the top-level pages and every page of the served folders. */
function servedFiles(docsDir: string): string[] {
  const markdown = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.md')).sort() : []);
  const files = markdown(docsDir).filter((name) => docPagePath(name) !== undefined);
  for (const folder of SERVED_FOLDERS) files.push(...markdown(posix.join(docsDir, folder)).map((name) => `${folder}/${name}`).filter((file) => docPagePath(file) !== undefined));
  return files;
}

/**
 * Renders every served page of `docsDir` once (docs/api/reference.md, "Served pages"): the
 * Markdown through @inkwell/markdown/document's renderDocument (sanitised; headings with GitHub's ids),
 * each relative link rewritten to the page it names, by URL path. A page added under a served
 * folder is picked up at the next start. Throws when docs/api has no page (a gateway without its
 * documentation would answer every error link with a 404).
 */
export function loadDocPages(docsDir: string = DOCS_DIR): Map<string, DocPage> {
  const pages = new Map<string, DocPage>();
  for (const file of servedFiles(docsDir)) {
    const path = docPagePath(file) as string;
    const rendered = renderDocument(readFileSync(posix.join(docsDir, file), 'utf8'), { resolve: (href) => resolveDocLink(file, href) });
    pages.set(path, { path, file, title: rendered.title ?? file, html: rendered.html, headings: rendered.headings });
  }
  if (![...pages.values()].some((page) => page.file.startsWith('api/'))) throw new Error(`no documentation pages under ${posix.join(docsDir, 'api')}: the gateway serves them under ${DOCS_PATH}`);
  return pages;
}
