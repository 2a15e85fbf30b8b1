import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

type Token = ReturnType<MarkdownIt['parse']>[number];

/** One heading of a rendered document: its level, its text and the id it can be linked to by. */
export interface DocumentHeading {
  readonly level: number;
  readonly text: string;
  readonly id: string;
}

/** A rendered document: sanitised HTML, its first heading's text, and every heading. */
export interface RenderedDocument {
  readonly html: string;
  /** The text of the first level-1 heading, or undefined when there is none. */
  readonly title: string | undefined;
  readonly headings: readonly DocumentHeading[];
}

/** How a document's links are rewritten: where a relative link goes, and which links are left as text. */
export interface DocumentLinks {
  /**
   * The href a link of the source gets (e.g. `lists.md#cursors` → `/docs/api/lists#cursors`), or
   * undefined to render the link's text without a link (a target that is not published). Called
   * for every link that is not absolute `http(s):`/`mailto:` or a fragment of the same page.
   */
  resolve(href: string): string | undefined;
}

// Raw HTML in the source is escaped, as for user texts; bare URLs are not turned into links.
const parser = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

const policy: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del', 'a', 'ul', 'ol', 'li',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], h1: ['id'], h2: ['id'], h3: ['id'], h4: ['id'], h5: ['id'], h6: ['id'], th: ['style'], td: ['style'], ol: ['start'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  transformTags: {
    a: (tagName, attribs) => (/^(https?:|mailto:)/i.test(attribs.href ?? '') ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } } : { tagName, attribs }),
  },
};

/**
 * The id GitHub gives a heading with text `text`, so that links written for the repository's
 * Markdown (`stories.md#search-decision`) work on the served page too: lower case, every
 * character but letters, digits, spaces, `-` and `_` removed, each space a `-`.
 */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * Renders one of the project's own documentation pages (trusted Markdown, not user text) to
 * sanitised HTML for the gateway's /docs pages: headings get GitHub's ids (a repeated id gets
 * `-1`, `-2`, …), relative links are rewritten by `links.resolve` (or left as plain text when it
 * gives none), absolute links get `rel="noopener noreferrer"`. The same sanitiser as user texts
 * removes anything that could run: no raw HTML, scripts, event handlers or `javascript:` URLs.
 * Synchronous: callers render their pages once, at start-up.
 */
export function renderDocument(source: string, links: DocumentLinks): RenderedDocument {
  const tokens = parser.parse(source, {});
  const headings: DocumentHeading[] = [];
  const used = new Map<string, number>();
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const text = plainText(tokens[index + 1]);
      const base = headingSlug(text);
      const seen = used.get(base) ?? 0;
      used.set(base, seen + 1);
      const id = seen === 0 ? base : `${base}-${seen}`;
      token.attrSet('id', id);
      headings.push({ level: Number(token.tag.slice(1)), text, id });
    }
    if (token.type === 'inline') rewriteLinks(token.children ?? [], links);
  });
  const html = sanitizeHtml(parser.renderer.render(tokens, parser.options, {}), policy).trim();
  return { html, title: headings.find((heading) => heading.level === 1)?.text, headings };
}

/** The text of an inline token, without its markup (code spans keep their content). */
function plainText(inline: Token | undefined): string {
  return (inline?.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
}

/** Rewrites the relative links of one inline run; a link without a target keeps its text only. */
function rewriteLinks(children: Token[], links: DocumentLinks): void {
  const unlinked: number[] = [];
  children.forEach((child) => {
    if (child.type === 'link_open') {
      const href = child.attrGet('href') ?? '';
      if (/^(https?:|mailto:)/i.test(href) || href.startsWith('#')) return unlinked.push(0);
      const target = links.resolve(href);
      if (target === undefined) {
        child.tag = 'span';
        child.attrs = null;
        return unlinked.push(1);
      }
      child.attrSet('href', target);
      return unlinked.push(0);
    }
    if (child.type === 'link_close' && unlinked.pop() === 1) child.tag = 'span';
  });
}
