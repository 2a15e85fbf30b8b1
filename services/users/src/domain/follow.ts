import { decodeCursor, encodeCursor } from '@inkwell/keyset';

/** One user following another. */
export interface Follow {
  id: string;
  followerId: string;
  followedId: string;
  dateFollowed: Date;
}

/** Which follows of a user a list walks: those they make, or those they receive. */
export type FollowDirection = 'following' | 'followers';

/**
 * Keyset position in a follow list: the last row's date_followed in microseconds since the
 * epoch (Postgres keeps microseconds; a JS Date would round them away) and its id.
 */
export interface FollowPosition {
  dateMicros: string;
  id: string;
}

/** The list a follow cursor is made for. */
const FOLLOW_LIST = 'follows';

/** Encodes a position as an opaque, URL-safe cursor (`@inkwell/keyset`). */
export function encodeFollowPosition(position: FollowPosition): string {
  return encodeCursor(FOLLOW_LIST, [position.dateMicros, position.id]);
}

/** Decodes what {@link encodeFollowPosition} made; undefined for anything else. */
export function decodeFollowPosition(value: string): FollowPosition | undefined {
  const [dateMicros, id] = decodeCursor(FOLLOW_LIST, value, 2) ?? [];
  if (typeof dateMicros !== 'string' || !/^-?[0-9]{1,17}$/.test(dateMicros)) return undefined;
  if (typeof id !== 'string' || !/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > 9223372036854775807n) return undefined;
  return { dateMicros, id };
}

/** Page size of follow lists when none is asked for (docs/api/lists.md, "Cursor pagination"). */
export const DEFAULT_FOLLOW_PAGE_SIZE = 20;
