/** A blog post as the blog service knows it. */
export interface BlogPost {
  id: string;
  /** The user who wrote it; undefined for site posts, which belong to the site. */
  authorId: string | undefined;
  title: string;
  /** Markdown; loaded only when asked for (it can be up to 1 MiB). */
  content?: string;
  /** `content` rendered to sanitised HTML; loaded exactly when `content` is. */
  contentHtml?: string;
  /** Plain-text opening of the content (see introFromHtml). */
  intro: string;
  /** Normalised tags (see normaliseTag), in the order the author gave them. */
  tags: string[];
  /** Linked stories that are currently published, in the order the author gave them. */
  storyIds: string[];
  datePosted: Date;
  dateModified: Date;
  numViews: number;
  sitePost: boolean;
  /** Category of a site post; undefined on user posts and untagged site posts. */
  sitePostTag: string | undefined;
}

/** Who is asking, as far as the blog's rules care (structurally a gRPC CallerContext). */
export interface Caller {
  readonly userId?: string;
  readonly appId?: string;
  readonly scopes: readonly string[];
}

/**
 * Whose views count once per 24 hours: the user across all their apps, or the app for app-only
 * tokens (docs/api/blog.md, "Views"). Internal callers without either are no reader.
 */
export type Reader = { kind: 'user'; userId: string } | { kind: 'app'; appId: string };

/** The reader behind a caller, or undefined when the caller is neither a user nor an app. */
export function readerOf(caller: Caller): Reader | undefined {
  if (caller.userId !== undefined) return { kind: 'user', userId: caller.userId };
  if (caller.appId !== undefined) return { kind: 'app', appId: caller.appId };
  return undefined;
}

/** A stable string naming a reader (`u:<id>` / `a:<id>`), e.g. for dedupe keys. */
export function readerKey(reader: Reader): string {
  return reader.kind === 'user' ? `u:${reader.userId}` : `a:${reader.appId}`;
}

/** How long one reader's view of one post is counted once (docs/api/blog.md, "Views"). */
export const VIEW_WINDOW_SECONDS = 24 * 60 * 60;

/** True when `id` is a positive integer that fits a Postgres bigint. */
export function isId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}
