import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

// Raw HTML in the source is escaped, not passed through; links are autodetected.
const parser = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

const policy: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del', 'a', 'ul', 'ol', 'li',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'img',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], th: ['style'], td: ['style'], ol: ['start'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
};
policy.allowedAttributes = { ...policy.allowedAttributes, a: ['href', 'title', 'rel'] };

/**
 * Renders user-written Markdown to HTML that is safe to embed: no scripts, no event handlers,
 * no `javascript:`/`data:` URLs, links marked nofollow. Empty input gives an empty string.
 */
export function renderMarkdown(source: string): string {
  if (!source) return '';
  return sanitizeHtml(parser.render(source), policy).trim();
}
