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

/**
 * The tag-id syntax of the `tag_id` rule in proto/inkwell/api/v1/rules.proto, its owner: requests
 * are refused there. Here it only drops what cannot match (a lookup, a forged cursor), so the
 * domain imports nothing; transport/tag-id.test.ts checks it against the proto's.
 */
const TAG_ID = /^[cg]:[1-9][0-9]{0,8}$/;

/** True when `id` has the form of a tag id (`c:12`, `g:3`); says nothing about whether it exists. */
export function isTagId(id: string): boolean {
  return TAG_ID.test(id);
}

/** The tag ids in `ids` without duplicates, in first-seen order. */
export function uniqueTagIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
