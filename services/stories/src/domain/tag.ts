/** Characters (`c:<n>`) and genres (`g:<n>`). */
export type TagKind = 'character' | 'genre';

/** A tag of the catalogue. */
export interface Tag {
  /** The filter form: `c:<n>` or `g:<n>`. */
  id: string;
  name: string;
  kind: TagKind;
  slug: string;
  /** Published stories carrying the tag. */
  numStories: number;
}

/** The tag ids in `ids` without duplicates, in first-seen order. */
export function uniqueTagIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
