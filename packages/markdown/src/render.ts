import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { MAX_HTML_BYTES } from './render-protocol.js';

type Token = ReturnType<MarkdownIt['parse']>[number];


/** What rendering one text gave: the sanitised HTML, or why there is none. */
export type RenderOutcome = { ok: true; html: string } | { ok: false; reason: 'too_large' };

// Raw HTML in the source is escaped, not passed through; links are autodetected.
const parser = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
// Text needs only &, < and > escaped; markdown-it also writes every " as &quot; (six bytes), which
// the sanitiser turns back into ", and which would count six times against the budget below.
parser.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);

const policy: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del', 'a', 'ul', 'ol', 'li',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'img',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], img: ['src', 'alt', 'title'], th: ['style'], td: ['style'], ol: ['start'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
};

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function escapeText(text: string): string {
  return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (char) => TEXT_ESCAPES[char]!) : text;
}

/** Thrown inside {@link renderTokens} the moment the output passes its budget. */
class OverBudget extends Error {}

/**
 * Renders user-written Markdown to HTML that is safe to embed (no scripts, no event handlers, no
 * `javascript:`/`data:` URLs, links marked nofollow), or refuses it when the HTML would be larger
 * than `maxHtmlBytes`. Synchronous and CPU-bound: callers run it in a worker thread (see
 * render.worker.ts), never on a service's event loop. Empty input gives an empty string.
 *
 * Expansion is stopped where it happens: a link reference defined once can be used thousands
 * of times, each use copying its URL, so the unsanitised HTML is built under a budget and
 * abandoned as soon as it passes `maxHtmlBytes` plus the length of the source (room for what
 * the sanitiser removes: code-language classes, links with other schemes). The sanitised HTML
 * is then measured exactly.
 */
export function renderHtml(source: string, maxHtmlBytes: number = MAX_HTML_BYTES): RenderOutcome {
  if (!source) return { ok: true, html: '' };
  const env = {};
  let raw: string;
  try {
    raw = renderTokens(parser.parse(source, env), env, maxHtmlBytes + source.length);
  } catch (error) {
    if (error instanceof OverBudget) return { ok: false, reason: 'too_large' };
    throw error;
  }
  const html = sanitizeHtml(raw, policy).trim();
  if (Buffer.byteLength(html, 'utf8') > maxHtmlBytes) return { ok: false, reason: 'too_large' };
  return { ok: true, html };
}

/**
 * markdown-it's Renderer.render and renderInline (same rules, same order), checking the length
 * of the output after every token instead of once at the end. Lengths are UTF-16 code units,
 * which never exceed the UTF-8 bytes they stand for.
 */
function renderTokens(tokens: Token[], env: object, budget: number): string {
  const { renderer } = parser;
  const { rules } = renderer;
  const parts: string[] = [];
  let length = 0;
  const add = (part: string) => {
    length += part.length;
    if (length > budget) throw new OverBudget();
    parts.push(part);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === 'inline') {
      const children = token.children ?? [];
      for (let j = 0; j < children.length; j++) {
        const rule = rules[children[j]!.type];
        add(rule ? rule(children, j, parser.options, env, renderer) : renderer.renderToken(children, j, parser.options));
      }
    } else {
      const rule = rules[token.type];
      add(rule ? rule(tokens, i, parser.options, env, renderer) : renderer.renderToken(tokens, i, parser.options));
    }
  }
  return parts.join('');
}
