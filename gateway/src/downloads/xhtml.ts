import type { ChildNode, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';

/**
 * The elements the Markdown renderer may produce (packages/markdown/src/render.ts, its sanitiser's
 * list): kept as they are. Any other element is left out and its content kept (a defence: the
 * stored HTML never has one).
 */
const KEPT_ELEMENTS: ReadonlySet<string> = new Set([
  'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del', 'a', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
]);
/** Elements without content, written self-closed (`<br/>`) so that the result is XML. */
const VOID_ELEMENTS: ReadonlySet<string> = new Set(['br', 'hr']);
/** Links that lead somewhere outside the document; relative ones and fragments would dangle in a download. */
const OUTSIDE_LINK = /^(https?:\/\/|mailto:)/i;
const TEXT_ALIGN = /^\s*text-align\s*:\s*(left|right|center)\s*;?\s*$/i;
/** Characters XML 1.0 does not allow (C0 controls but tab, LF and CR; U+FFFE/U+FFFF; unpaired surrogates). */
// eslint-disable-next-line no-control-regex -- these are exactly the characters removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Turns the sanitised HTML of a rendered Markdown text (a chapter, an author's note, a story's
 * description) into well-formed XHTML that a download can embed (docs/api/stories.md,
 * "Downloads"): every element closed, `<br/>` and `<hr/>` self-closed, text and attribute values
 * escaped with the five XML entities only (HTML's named entities are decoded into characters),
 * characters XML forbids removed. What a download cannot carry changes: an image (a remote file)
 * becomes a link to it labelled with its alt text, or "image"; a link that does not leave the
 * document (relative, a fragment) keeps its text only. Only the attributes the renderer writes
 * survive (`href`, `title`, `rel` of links, `start` of lists, a `text-align` style of cells).
 * The result is also valid HTML, so the HTML download uses it too.
 */
export function toXhtml(html: string): string {
  if (html === '') return '';
  const out: string[] = [];
  writeNodes(parseDocument(html, { decodeEntities: true }).children, out);
  return out.join('');
}

/** `text` escaped for XML element content or a double-quoted attribute value, forbidden characters removed. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '').replace(/[&<>"]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : '&quot;'));
}

function writeNodes(nodes: readonly ChildNode[], out: string[]): void {
  for (const node of nodes) {
    if (node.type === 'text') out.push(escapeXml(node.data));
    else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') writeElement(node, out);
    // Comments, directives and CDATA are not content.
  }
}

function writeElement(element: Element, out: string[]): void {
  const name = element.name.toLowerCase();
  if (name === 'img') {
    const src = element.attribs['src'] ?? '';
    const label = element.attribs['alt']?.trim() || 'image';
    if (OUTSIDE_LINK.test(src)) out.push(`<a href="${escapeXml(src)}">[${escapeXml(label)}]</a>`);
    else out.push(`[${escapeXml(label)}]`);
    return;
  }
  if (name === 'script' || name === 'style') return;
  if (!KEPT_ELEMENTS.has(name) || (name === 'a' && !OUTSIDE_LINK.test(element.attribs['href'] ?? ''))) {
    writeNodes(element.children, out);
    return;
  }
  const attributes = attributesOf(name, element.attribs);
  if (VOID_ELEMENTS.has(name)) {
    out.push(`<${name}${attributes}/>`);
    return;
  }
  out.push(`<${name}${attributes}>`);
  writeNodes(element.children, out);
  out.push(`</${name}>`);
}

function attributesOf(name: string, attribs: Readonly<Record<string, string>>): string {
  const kept: string[] = [];
  const add = (attribute: string, value: string) => kept.push(` ${attribute}="${escapeXml(value)}"`);
  if (name === 'a') {
    add('href', attribs['href'] as string);
    if (attribs['title'] !== undefined) add('title', attribs['title']);
    if (attribs['rel'] !== undefined && /^[a-z ]+$/.test(attribs['rel'])) add('rel', attribs['rel']);
  } else if (name === 'ol' && attribs['start'] !== undefined && /^[0-9]{1,9}$/.test(attribs['start'])) {
    add('start', attribs['start']);
  } else if (name === 'th' || name === 'td') {
    const align = TEXT_ALIGN.exec(attribs['style'] ?? '')?.[1];
    if (align !== undefined) add('style', `text-align: ${align.toLowerCase()}`);
  }
  return kept.join('');
}
