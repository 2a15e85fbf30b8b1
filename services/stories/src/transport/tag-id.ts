import { TAG_ID_PATTERN } from '@inkwell/proto/options';

/**
 * True when `id` has the form of a tag id (`c:12`, `g:3`), by the proto's `tag_id` rule, the
 * one statement of the syntax (docs/api/foundation.md, "One contract"); says nothing about
 * whether the tag exists. Handed to TagService by the composition root.
 */
export function isTagId(id: string): boolean {
  return TAG_ID_PATTERN.test(id);
}
