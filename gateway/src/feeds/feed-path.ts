import { isId } from '../jsonapi/proto-rules.js';
import type { FeedKind } from './feed.builders.js';

/** Where the feeds live: `/feeds/<kind>/<id>.atom` (docs/api/updates.md, "Atom feeds"). */
export const FEEDS_PREFIX = '/feeds';

/** One feed a path names: its kind, the id of what it is about, and its pattern for logs and metrics. */
export interface FeedTarget {
  readonly kind: FeedKind;
  readonly id: string;
  /** `/feeds/stories/:id.atom`: never the raw path (the notifications feed's carries its token). */
  readonly route: string;
}

/** A tag id in filter form (`c:<n>`, `g:<n>`); anything else names no tag. */
const TAG_ID = /^[cg]:[1-9][0-9]{0,8}$/;
/** A feed token as the messaging service issues them (base64url, at most 64 characters); anything else names no feed. */
const FEED_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/** What the id of each kind must look like, and the name of the id in the route pattern. */
const KINDS: Readonly<Record<FeedKind, { readonly accepts: (id: string) => boolean; readonly param: string }>> = {
  stories: { accepts: isId, param: ':id' },
  users: { accepts: isId, param: ':id' },
  tags: { accepts: (id) => TAG_ID.test(id), param: ':id' },
  bookshelves: { accepts: isId, param: ':id' },
  notifications: { accepts: (id) => FEED_TOKEN.test(id), param: ':token' },
};

/**
 * The feed `path` (no query string) names, or undefined when it names none: an unknown kind, an
 * id that cannot be one of that kind (`/feeds/stories/abc.atom`), no `.atom` ending, or more
 * segments. A tag id may come percent-encoded (`c%3A12`); nothing else is decoded.
 */
export function parseFeedPath(path: string): FeedTarget | undefined {
  if (!path.startsWith(`${FEEDS_PREFIX}/`) || !path.endsWith('.atom')) return undefined;
  const rest = path.slice(FEEDS_PREFIX.length + 1, -'.atom'.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return undefined;
  const kind = rest.slice(0, slash);
  if (!Object.hasOwn(KINDS, kind)) return undefined;
  const spec = KINDS[kind as FeedKind];
  let id = rest.slice(slash + 1);
  if (kind === 'tags') id = id.replace(/%3a/i, ':');
  if (!spec.accepts(id)) return undefined;
  return { kind: kind as FeedKind, id, route: `${FEEDS_PREFIX}/${kind}/${spec.param}.atom` };
}
