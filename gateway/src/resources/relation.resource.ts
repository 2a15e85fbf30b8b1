import { BlockSchema, ListBlocksRequestSchema, ListMutesRequestSchema, MuteSchema, MuteTargetRequestSchema, type Block, type Mute } from '@inkwell/proto/users';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, cursorPagination, defineListSpec, defineResourceSchema, defineWriteSpec, identifierIds } from '../jsonapi/index.js';
import { protoResourceMapper } from './proto-resource.js';
import { TAG_SCHEMA, TAG_TYPE } from './tag.resource.js';
import { USER_SCHEMA } from './user.resource.js';

/** The JSON:API types of blocks and mutes (docs/api/safety.md). */
export const BLOCK_TYPE = 'block';
export const MUTE_TYPE = 'mute';

/** A block: its id is the blocked user's id; `date_created`, and the blocker and blocked users. */
export const BLOCK_SCHEMA = defineResourceSchema({
  type: BLOCK_TYPE,
  description: 'That `blocker` blocks `blocked` (docs/api/safety.md, "Blocking"). Its id is the blocked user\'s id.',
  attributes: { date_created: at.dateTime(undefined, { nullable: true }) },
  relationships: { blocker: { type: 'user', many: false }, blocked: { type: 'user', many: false } },
});

/** A mute: exactly one of `author` and `tag` is set. */
export const MUTE_SCHEMA = defineResourceSchema({
  type: MUTE_TYPE,
  description: 'That `muter` mutes an `author` or a `tag` (docs/api/safety.md, "Muting"): exactly one of the two is set.',
  attributes: { date_created: at.dateTime(undefined, { nullable: true }) },
  relationships: { muter: { type: 'user', many: false }, author: { type: 'user', many: false }, tag: { type: TAG_TYPE, many: false } },
});

/** POST /users/me/blocks body: a block whose `blocked` relationship names the user to block. */
export const BLOCK_CREATE = defineWriteSpec({
  resource: BLOCK_SCHEMA,
  attributes: {},
  relationships: { blocked: { type: 'user', many: false, id: identifierIds.numeric() } },
  requiredRelationships: ['blocked'],
});

/** POST /users/me/mutes body: a mute naming exactly one of `author` (a user) and `tag`. */
export const MUTE_CREATE = defineWriteSpec({
  resource: MUTE_SCHEMA,
  attributes: {},
  relationships: {
    author: { type: 'user', many: false, id: identifierIds.numeric() },
    tag: { type: TAG_TYPE, many: false, id: identifierIds.tag(MuteTargetRequestSchema.field.tagId, 'field') },
  },
});

/** GET /users/me/blocks: newest first, cursor pages, `include=blocked`. */
export const BLOCK_LIST = defineListSpec({
  resource: BLOCK_SCHEMA,
  types: [USER_SCHEMA],
  includes: ['blocker', 'blocked'],
  filters: {},
  pagination: cursorPagination(ListBlocksRequestSchema.field.pageSize),
});

/** GET /users/me/mutes: newest first, cursor pages, `include=author,tag`. */
export const MUTE_LIST = defineListSpec({
  resource: MUTE_SCHEMA,
  types: [USER_SCHEMA, TAG_SCHEMA],
  includes: ['muter', 'author', 'tag'],
  filters: {},
  pagination: cursorPagination(ListMutesRequestSchema.field.pageSize),
});

const BLOCK_FIELDS = protoResourceMapper(BlockSchema, BLOCK_SCHEMA);
const MUTE_ATTRIBUTES = protoResourceMapper(MuteSchema, { ...MUTE_SCHEMA, relationships: {} });

/** Maps a users.v1 Block to its resource (no GET-by-id endpoint, so no `links.self`). */
export function toBlockResource(block: Block): ResourceObject {
  return resourceObject(BLOCK_TYPE, block.blockedId, BLOCK_FIELDS.attributes(block), { relationships: BLOCK_FIELDS.relationships(block) });
}

/** Maps a users.v1 Mute to its resource: the relationship of the other kind of target is null. */
export function toMuteResource(mute: Mute): ResourceObject {
  return resourceObject(MUTE_TYPE, mute.id, MUTE_ATTRIBUTES.attributes(mute), {
    relationships: {
      muter: { data: { type: 'user', id: mute.muterId } },
      author: { data: mute.authorId === undefined ? null : { type: 'user', id: mute.authorId } },
      tag: { data: mute.tagId === undefined ? null : { type: TAG_TYPE, id: mute.tagId } },
    },
  });
}

/** The block of a block response. */
export function blockOf({ block }: { readonly block?: Block }): ResourceObject | null {
  return block === undefined ? null : toBlockResource(block);
}

/** The blocks of a list response. */
export function blocksOf({ blocks }: { readonly blocks: readonly Block[] }): ResourceObject[] {
  return blocks.map(toBlockResource);
}

/** The mute of a mute response. */
export function muteOf({ mute }: { readonly mute?: Mute }): ResourceObject | null {
  return mute === undefined ? null : toMuteResource(mute);
}

/** The mutes of a list response. */
export function mutesOf({ mutes }: { readonly mutes: readonly Mute[] }): ResourceObject[] {
  return mutes.map(toMuteResource);
}
