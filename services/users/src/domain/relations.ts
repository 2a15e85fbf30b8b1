import { decodeCursor, encodeCursor } from '@inkwell/keyset';
import { isUserId } from './user.js';

/** One user (blocker) blocking another (docs/api/safety.md, "Blocking"). */
export interface Block {
  blockerId: string;
  blockedId: string;
  dateCreated: Date;
}

/** What a mute hides: an author (by user id) or a tag (by tag id). */
export type MuteTarget = { authorId: string } | { tagId: string };

/** One user (muter) muting an author or a tag (docs/api/safety.md, "Muting"). */
export interface Mute {
  /** Storage id. */
  id: string;
  muterId: string;
  target: MuteTarget;
  dateCreated: Date;
}

/** What one user blocks and mutes, whole: the read-time filters of their inbox and lists. */
export interface Relations {
  blockedUserIds: string[];
  mutedAuthorIds: string[];
  mutedTagIds: string[];
}

/** Most users one user may block, and most targets one user may mute (each set stays cheap to send with every list). */
export const MAX_BLOCKS = 1000;
export const MAX_MUTES = 1000;

/** Page size of block and mute lists when none is asked for (docs/api/lists.md, "Cursor pagination"). */
export const DEFAULT_RELATION_PAGE_SIZE = 20;

/** A target as one string (the `target` column): `u:<user id>` for an author, the tag id for a tag. */
export function targetKeyOf(target: MuteTarget): string {
  return 'authorId' in target ? `u:${target.authorId}` : target.tagId;
}

/**
 * Keyset position in a newest-first block or mute list: the last row's date_created in
 * microseconds since the epoch (a JS Date would round Postgres' microseconds away) and its key
 * (the blocked user's id, or the mute's id).
 */
export interface RelationPosition {
  dateMicros: string;
  key: string;
}

/** Encodes a position of list `list` ('blocks' or 'mutes') as an opaque cursor (`@inkwell/keyset`). */
export function encodeRelationPosition(list: 'blocks' | 'mutes', position: RelationPosition): string {
  return encodeCursor(list, [position.dateMicros, position.key]);
}

/** Decodes what {@link encodeRelationPosition} made for the same list; undefined for anything else. */
export function decodeRelationPosition(list: 'blocks' | 'mutes', value: string): RelationPosition | undefined {
  const [dateMicros, key] = decodeCursor(list, value, 2) ?? [];
  if (typeof dateMicros !== 'string' || !/^-?[0-9]{1,17}$/.test(dateMicros)) return undefined;
  // Both keys (a user id, a mute id) are positive bigints, the form isUserId checks.
  return typeof key === 'string' && isUserId(key) ? { dateMicros, key } : undefined;
}
