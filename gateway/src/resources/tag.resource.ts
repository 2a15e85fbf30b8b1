import type { MessageInitShape } from '@bufbuild/protobuf';
import { ListTagsRequestSchema, SortDirection, TagKindSchema, TagSchema, TagSortFieldSchema, type Tag } from '@inkwell/proto/stories';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, cursorPagination, defineListSpec, defineResourceSchema, filters } from '../jsonapi/index.js';
import type { ListQueryOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of story tags. */
export const TAG_TYPE = 'tag';

const KIND = protoEnumNames(TagKindSchema);
const SORT_FIELD = protoEnumNames(TagSortFieldSchema);

/** The public values of tag `kind`: character, genre. */
export const TAG_KINDS = KIND.names;

/** The sort fields of GET /tags: name, num_stories. */
export const TAG_SORT_FIELDS = SORT_FIELD.names;

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
 * GET /tags (docs/api/stories.md, "Tags"): the character and genre catalogue, `filter[kind]`, sort `name` or
 * `num_stories` in either direction (default: catalogue order, kind then number), cursor pages
 * (docs/api/lists.md).
 */
export const TAG_LIST = defineListSpec({
  resource: TAG_SCHEMA,
  filters: { kind: filters.enumeration(TAG_KINDS) },
  sort: { fields: TAG_SORT_FIELDS },
  pagination: cursorPagination(ListTagsRequestSchema.field.pageSize),
});

const TAG_FIELDS = protoResourceMapper(TagSchema, TAG_SCHEMA, { enums: { kind: KIND } });

/**
 * Maps a stories.v1 Tag to its JSON:API resource. Tags have no GET-by-id endpoint, so no
 * `links.self` (docs/api/foundation.md, "Documents"); `num_stories` counts published stories.
 */
export function toTagResource(tag: Tag): ResourceObject {
  return resourceObject(TAG_TYPE, tag.id, TAG_FIELDS.attributes(tag));
}

/** The tags of a list response. */
export function tagsOf({ tags }: { readonly tags: readonly Tag[] }): ResourceObject[] {
  return tags.map(toTagResource);
}

/** GET /tags for the stories service: `filter[kind]` and the sort (none: catalogue order). */
export function tagListRequest({ filters, sort }: ListQueryOf<typeof TAG_LIST>): MessageInitShape<typeof ListTagsRequestSchema> {
  return {
    kind: KIND.toProto(filters.kind),
    sort: sort === undefined ? {} : { field: SORT_FIELD.toProto(sort.field), direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING },
  };
}
