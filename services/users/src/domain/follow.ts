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

/** Encodes a position as an opaque, URL-safe string. */
export function encodeFollowPosition(position: FollowPosition): string {
  return Buffer.from(`${position.dateMicros}:${position.id}`, 'utf8').toString('base64url');
}

/** Decodes what {@link encodeFollowPosition} made; undefined for anything else. */
export function decodeFollowPosition(value: string): FollowPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) return undefined;
  const match = /^(-?[0-9]{1,17}):([1-9][0-9]{0,18})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) return undefined;
  if (BigInt(match[2]) > 9223372036854775807n) return undefined;
  return { dateMicros: match[1], id: match[2] };
}

/** Default and largest page sizes of follow lists (contract §6). */
export const FOLLOW_PAGE = { defaultSize: 20, maxSize: 100 } as const;
