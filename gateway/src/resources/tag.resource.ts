import { TagKind, type Tag } from '@inkwell/proto/stories';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../lists/index.js';

/** The JSON:API type of story tags. */
export const TAG_TYPE = 'tag';

/** The public values of tag `kind`. */
export const TAG_KINDS = ['character', 'genre'] as const;
/** A public tag kind. */
export type TagKindValue = (typeof TAG_KINDS)[number];

/** The proto enum of a public tag kind (for `filter[kind]`). */
export function tagKindToProto(kind: TagKindValue): TagKind {
  return kind === 'character' ? TagKind.CHARACTER : TagKind.GENRE;
}

/** The tag type (docs/api/stories.md, "Tags"): read-only catalogue entries whose id is their filter form (`c:<n>`, `g:<n>`). */
export const TAG_SCHEMA = defineResourceSchema({
  type: TAG_TYPE,
  description: 'A story tag: a character (`c:<n>`) or a genre (`g:<n>`); its id is the filter form itself.',
  attributes: {
    name: at.string(),
    kind: at.enumeration(TAG_KINDS, undefined, { nullable: true }),
    slug: at.string(),
    num_stories: at.integer('Published stories with the tag.', { minimum: 0 }),
  },
});

/**
 * Maps a stories.v1 Tag to its JSON:API resource. Tags have no GET-by-id endpoint, so no
 * `links.self` (docs/api/foundation.md, "Documents"); `num_stories` counts published stories.
 */
export function toTagResource(tag: Tag): ResourceObject {
  const kind = tag.kind === TagKind.CHARACTER ? 'character' : tag.kind === TagKind.GENRE ? 'genre' : null;
  return resourceObject(TAG_TYPE, tag.id, { name: tag.name, kind, slug: tag.slug, num_stories: tag.numStories });
}
