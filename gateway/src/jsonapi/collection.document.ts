import type { CollectionDocument, CollectionLinks, JsonValue, ResourceObject } from './document.builder.js';

/**
 * `url` with the query parameters named in `changes` replaced: each occurrence of such a
 * parameter is dropped (whatever its encoding, `page[cursor]` or `page%5Bcursor%5D`) and, when
 * its new value is a string, the parameter is appended with the value. Every other parameter is
 * kept byte for byte as the client sent it, search text included (docs/api/lists.md, "Cursor pagination").
 */
export function replaceQueryParameters(url: string, changes: Readonly<Record<string, string | undefined>>): string {
  const queryStart = url.indexOf('?');
  const base = queryStart === -1 ? url : url.slice(0, queryStart);
  const kept = queryStart === -1 ? [] : url.slice(queryStart + 1).split('&').filter((piece) => piece !== '' && !Object.hasOwn(changes, parameterName(piece)));
  for (const [name, value] of Object.entries(changes)) {
    if (value !== undefined) kept.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return kept.length === 0 ? base : `${base}?${kept.join('&')}`;
}

function parameterName(piece: string): string {
  const eq = piece.indexOf('=');
  const raw = (eq === -1 ? piece : piece.slice(0, eq)).replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Links of a cursor-paginated page: `self` is the request URL, `first` the same without
 * `page[cursor]`, `next` the same with `page[cursor]=<nextCursor>` (absent when there is no
 * next page). `page[size]` and everything else stay as sent.
 */
export function cursorLinks(self: string, nextCursor: string | undefined): CollectionLinks {
  const first = replaceQueryParameters(self, { 'page[cursor]': undefined });
  if (nextCursor === undefined) return { self, first };
  return { self, first, next: replaceQueryParameters(self, { 'page[cursor]': nextCursor }) };
}

/**
 * Links and meta of a page-numbered page (docs/api/lists.md, "Page-numbered pagination"): `first` and `last` always (`last`
 * is page 1 of an empty list), `prev` from page 2 on (pointing at the last page when `number`
 * is past the end), `next` while `number` is before the last page; `meta.total` is the number
 * of items in the whole list.
 */
export function numberedPageLinks(self: string, page: { readonly number: number; readonly size: number }, total: number): { links: CollectionLinks; meta: { total: number } } {
  const last = Math.max(1, Math.ceil(total / page.size));
  const at = (number: number): string => replaceQueryParameters(self, { 'page[number]': String(number) });
  const links: { -readonly [K in keyof CollectionLinks]: CollectionLinks[K] } = { self, first: at(1) };
  if (page.number > 1) links.prev = at(Math.min(page.number - 1, last));
  if (page.number < last) links.next = at(page.number + 1);
  links.last = at(last);
  return { links, meta: { total } };
}

/** Builds a collection document; `included` is sent only when non-empty, `meta` only when given. */
export function collectionDocument(
  data: readonly ResourceObject[],
  links: CollectionLinks,
  included: readonly ResourceObject[] = [],
  meta?: { readonly [key: string]: JsonValue },
): CollectionDocument {
  return {
    data,
    ...(included.length === 0 ? {} : { included }),
    links,
    ...(meta === undefined ? {} : { meta }),
  };
}
