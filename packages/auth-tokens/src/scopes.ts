/**
 * The eleven OAuth scopes (docs/api/accounts.md, "Scopes"), each with the plain-words description the consent page shows.
 */
export const SCOPES = {
  read_stories: 'See your unpublished stories and chapters.',
  write_stories: 'Create, change and delete your stories and chapters.',
  read_bookshelves: 'See your private bookshelves and what is on them.',
  write_bookshelves: 'Create, change and delete your bookshelves and what is on them.',
  write_blog_posts: 'Post, change and delete your blog posts.',
  read_user: 'See your account details, such as your e-mail address (never your password).',
  write_user: 'Change your account settings (bio, e-mail address) and follow or unfollow people for you.',
  read_pms: 'Read your private messages and mark them as read.',
  write_pms: 'Send private messages in your name.',
  write_comments: 'Post and delete comments in your name.',
  write_ratings: 'Like and dislike stories in your name.',
} as const satisfies Record<string, string>;

/** One OAuth scope name. */
export type Scope = keyof typeof SCOPES;

/** Every scope name, in the order of the contract. */
export const SCOPE_NAMES: readonly Scope[] = Object.keys(SCOPES) as Scope[];

/** True when `value` is one of the scopes of {@link SCOPES}. */
export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The result of {@link parseScopes}. */
export interface ParsedScopes {
  /** Known scopes, each once, in the order first given. */
  scopes: Scope[];
  /** Names that are not scopes, each once, in the order first given. */
  unknown: string[];
}

/**
 * Splits an OAuth `scope` parameter (RFC 6749 §3.3: names separated by spaces) into known and
 * unknown scopes. Any run of whitespace separates; duplicates are dropped; an empty or blank
 * string is no scopes at all. Deciding what to do with unknown names is the caller's job.
 */
export function parseScopes(value: string): ParsedScopes {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const name of value.split(/\s+/)) {
    if (name === '') continue;
    if (isScope(name)) {
      if (!scopes.includes(name)) scopes.push(name);
    } else if (!unknown.includes(name)) {
      unknown.push(name);
    }
  }
  return { scopes, unknown };
}
