/** Target length of an intro in characters (docs/api/blog.md, "The blog_post resource": about 300 characters). */
export const INTRO_LENGTH = 300;

const BLOCK_BOUNDARY = /<\/?(?:p|br|hr|blockquote|pre|li|ul|ol|h[1-6]|table|thead|tbody|tr|th|td)\b[^>]*>/gi;
const ANY_TAG = /<[^>]*>/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * The plain-text opening of a post, from its sanitised HTML: tags dropped (block boundaries
 * become spaces, so paragraphs do not run together), entities decoded, whitespace collapsed.
 * Text longer than `length` characters is cut at the last space before the limit (or at the
 * limit itself when that space would lose more than a third) and ends with `…`. Images and
 * other markup without text contribute nothing.
 */
export function introFromHtml(html: string, length: number = INTRO_LENGTH): string {
  const text = decodeEntities(html.replace(BLOCK_BOUNDARY, ' ').replace(ANY_TAG, '')).replace(/\s+/g, ' ').trim();
  const chars = [...text];
  if (chars.length <= length) return text;
  const head = chars.slice(0, length).join('');
  const lastSpace = head.lastIndexOf(' ');
  const cut = lastSpace >= (length * 2) / 3 ? head.slice(0, lastSpace) : head;
  return `${cut.trimEnd()}…`;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
