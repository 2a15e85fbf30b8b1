/** The Atom namespace (RFC 4287 §2). */
export const ATOM_NAMESPACE = 'http://www.w3.org/2005/Atom';

/** The media type of every feed (docs/api/updates.md, "Atom feeds"). */
export const ATOM_MEDIA_TYPE = 'application/atom+xml; charset=utf-8';

/** An atom:author (RFC 4287 §3.2): a name, and the person's API URL. */
export interface AtomPerson {
  readonly name: string;
  readonly uri?: string;
}

/** One atom:entry; every required element of RFC 4287 §4.1.2 is a required field. */
export interface AtomEntry {
  /** A permanent IRI: the resource's API URL or a tag: URI. */
  readonly id: string;
  /** Plain text (written as `type="text"`). */
  readonly title: string;
  readonly updated: Date;
  readonly published?: Date;
  /** The resource's API URL (`rel="alternate"`). */
  readonly alternate: string;
  /** Entries without authors take the feed's (RFC 4287 §4.2.1). */
  readonly authors?: readonly AtomPerson[];
  /** Plain text. */
  readonly summary?: string;
  /** atom:category terms, e.g. a notification's kind. */
  readonly categories?: readonly string[];
}

/** One atom:feed; every required element of RFC 4287 §4.1.1 is a required field. */
export interface AtomFeed {
  /** A permanent IRI: the feed's own URL. */
  readonly id: string;
  readonly title: string;
  readonly subtitle?: string;
  readonly updated: Date;
  /** The feed's URL (`rel="self"`). */
  readonly self: string;
  /** The API URL of what the feed is about (`rel="alternate"`). */
  readonly alternate?: string;
  /** At least one, unless every entry has its own (checked by {@link renderAtomFeed}). */
  readonly authors: readonly AtomPerson[];
  readonly entries: readonly AtomEntry[];
}

/**
 * Characters XML 1.0 does not allow at all (§2.2: C0 controls other than tab, newline and carriage
 * return, lone surrogates, U+FFFE and U+FFFF): user text that carries one is written without it,
 * so that the document always parses.
 */
const NOT_XML_CHAR = /[^\t\n\r\u{20}-\u{D7FF}\u{E000}-\u{FFFD}\u{10000}-\u{10FFFF}]/gu;
const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** `text` as XML character data or an attribute value (double-quoted): escaped, with characters XML cannot carry left out. */
export function xmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '').replace(/[&<>"]/g, (character) => TEXT_ESCAPES[character] as string);
}

/**
 * The Atom 1.0 document of `feed` (RFC 4287): UTF-8, every text escaped, titles, subtitles and
 * summaries as `type="text"` (user text is never markup to a feed reader), dates in RFC 3339 UTC.
 * The same input always gives the same bytes, so a digest of them is a strong validator. Throws
 * when the feed has no author and some entry has none either (RFC 4287 §4.1.1).
 */
export function renderAtomFeed(feed: AtomFeed): string {
  if (feed.authors.length === 0 && (feed.entries.length === 0 || feed.entries.some((entry) => (entry.authors ?? []).length === 0))) {
    throw new Error(`feed ${feed.id} needs an author: some entry has none`);
  }
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>\n', `<feed xmlns="${ATOM_NAMESPACE}">\n`];
  out.push(element('  ', 'id', feed.id), textElement('  ', 'title', feed.title));
  if (feed.subtitle !== undefined && feed.subtitle !== '') out.push(textElement('  ', 'subtitle', feed.subtitle));
  out.push(element('  ', 'updated', feed.updated.toISOString()), link('  ', 'self', feed.self, ATOM_MEDIA_TYPE.split(';')[0]));
  if (feed.alternate !== undefined) out.push(link('  ', 'alternate', feed.alternate));
  for (const author of feed.authors) out.push(person('  ', author));
  for (const entry of feed.entries) {
    out.push('  <entry>\n', element('    ', 'id', entry.id), textElement('    ', 'title', entry.title), element('    ', 'updated', entry.updated.toISOString()));
    if (entry.published !== undefined) out.push(element('    ', 'published', entry.published.toISOString()));
    out.push(link('    ', 'alternate', entry.alternate, 'application/vnd.api+json'));
    for (const author of entry.authors ?? []) out.push(person('    ', author));
    for (const term of entry.categories ?? []) out.push(`    <category term="${xmlText(term)}"/>\n`);
    if (entry.summary !== undefined && entry.summary !== '') out.push(textElement('    ', 'summary', entry.summary));
    out.push('  </entry>\n');
  }
  out.push('</feed>\n');
  return out.join('');
}

function element(indent: string, name: string, value: string): string {
  return `${indent}<${name}>${xmlText(value)}</${name}>\n`;
}

function textElement(indent: string, name: string, value: string): string {
  return `${indent}<${name} type="text">${xmlText(value)}</${name}>\n`;
}

function link(indent: string, rel: string, href: string, type?: string): string {
  return `${indent}<link rel="${rel}" href="${xmlText(href)}"${type === undefined ? '' : ` type="${type}"`}/>\n`;
}

function person(indent: string, author: AtomPerson): string {
  const uri = author.uri === undefined ? '' : `${indent}  <uri>${xmlText(author.uri)}</uri>\n`;
  return `${indent}<author>\n${indent}  <name>${xmlText(author.name)}</name>\n${uri}${indent}</author>\n`;
}
