import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { AppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import { BlogPostSortField, SortDirection as BlogSortDirection, type BlogPost, type BlogService } from '@inkwell/proto/blog';
import type { Bookshelf, BookshelvesService } from '@inkwell/proto/bookshelves';
import { NotificationKind, type Notification, type NotificationService } from '@inkwell/proto/messaging';
import { SortDirection, StorySortField, type Chapter, type StoriesService, type Story } from '@inkwell/proto/stories';
import type { User, UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { AtomEntry, AtomFeed, AtomPerson } from './atom.writer.js';

/** The most entries of any feed (docs/api/updates.md, "Atom feeds"). */
export const FEED_MAX_ENTRIES = 50;

/** The backends the feeds read, each called without a user (the public's view, or the feed token's). */
export interface FeedBackends {
  readonly users: GrpcClient<typeof UsersService>;
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly blog: GrpcClient<typeof BlogService>;
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  readonly notifications: GrpcClient<typeof NotificationService>;
}

/** What every builder needs: the backends, the site's links, and the options of its calls. */
export interface FeedContext {
  readonly backends: FeedBackends;
  readonly links: ApiLinks;
  /** The anonymous caller of the request (its request id, no user, no scopes). */
  readonly caller: CallerContext;
  /** Cancels the backend calls when the client is gone (none for a build shared by several clients). */
  readonly signal?: AbortSignal | undefined;
}

/** The kinds of feed, as in their paths (`/feeds/<kind>/<id>.atom`). */
export type FeedKind = 'stories' | 'users' | 'tags' | 'bookshelves' | 'notifications';

/** Builds the feed `id` of one kind; NOT_FOUND (an AppError) when there is no such feed. */
export type FeedBuilder = (id: string, context: FeedContext) => Promise<AtomFeed>;

/** The builder of each kind of feed (docs/api/updates.md, "Atom feeds"). */
export const FEED_BUILDERS: Readonly<Record<FeedKind, FeedBuilder>> = {
  stories: storyFeed,
  users: userFeed,
  tags: tagFeed,
  bookshelves: bookshelfFeed,
  notifications: notificationsFeed,
};

/** The date of an empty feed that has no date of its own (a tag's): the epoch, so its validator stays stable. */
const NEVER = new Date(0);
/** The date of the tag: URIs of the notifications feed (RFC 4151: the authority held the name then). */
const TAG_URI_DATE = '2026';

/** A published story's published chapters, newest first: GetStory and ListLatestChapters, then its author. */
async function storyFeed(id: string, context: FeedContext): Promise<AtomFeed> {
  const { backends, links } = context;
  const options = callOptions(context);
  const [{ story }, { chapters }] = await Promise.all([backends.stories.getStory({ id }, options), backends.stories.listLatestChapters({ source: { case: 'storyId', value: id }, limit: FEED_MAX_ENTRIES }, options)]);
  if (story === undefined || !story.published) throw AppError.notFound('story');
  const author = await person(context, story.authorId);
  const entries = chapters.map((chapter) => chapterEntry(chapter, story.title, links));
  return {
    id: links.site(`/feeds/stories/${id}.atom`),
    title: story.title,
    subtitle: story.shortDescription,
    updated: newest(entries, date(story.dateModified) ?? NEVER),
    self: links.site(`/feeds/stories/${id}.atom`),
    alternate: links.to(`/stories/${id}`),
    authors: [author],
    entries,
  };
}

/** An author's published stories, published chapters and blog posts, merged newest first. */
async function userFeed(id: string, context: FeedContext): Promise<AtomFeed> {
  const { backends, links } = context;
  const options = callOptions(context);
  const [{ user }, { stories }, { chapters }, { blogPosts }] = await Promise.all([
    backends.users.getUser({ id }, options),
    backends.stories.listUserStories({ userId: id, published: true, sort: { field: StorySortField.DATE_PUBLISHED, direction: SortDirection.DESCENDING }, pageSize: FEED_MAX_ENTRIES }, options),
    backends.stories.listLatestChapters({ source: { case: 'authorId', value: id }, limit: FEED_MAX_ENTRIES }, options),
    backends.blog.listBlogPosts({ filter: { authorId: id }, sort: { field: BlogPostSortField.DATE_POSTED, direction: BlogSortDirection.DESCENDING }, pageSize: FEED_MAX_ENTRIES }, options),
  ]);
  if (user === undefined) throw AppError.notFound('user');
  const titles = new Map(stories.map((story) => [story.id, story.title]));
  const untitled = [...new Set(chapters.map((chapter) => chapter.storyId).filter((storyId) => !titles.has(storyId)))];
  if (untitled.length > 0) for (const story of (await backends.stories.batchGetStories({ ids: untitled }, options)).stories) titles.set(story.id, story.title);
  const entries = [
    ...stories.map((story) => storyEntry(story, links)),
    ...chapters.map((chapter) => chapterEntry(chapter, titles.get(chapter.storyId), links)),
    ...blogPosts.map((post) => blogPostEntry(post, links)),
  ]
    .sort(newestFirst)
    .slice(0, FEED_MAX_ENTRIES);
  return {
    id: links.site(`/feeds/users/${id}.atom`),
    title: `${user.name} on Inkwell`,
    updated: newest(entries, date(user.dateJoined) ?? NEVER),
    self: links.site(`/feeds/users/${id}.atom`),
    alternate: links.to(`/users/${id}`),
    authors: [personOf(user, links)],
    entries,
  };
}

/** A tag's newest published stories (date_published descending), each with its author. */
async function tagFeed(id: string, context: FeedContext): Promise<AtomFeed> {
  const { backends, links } = context;
  const options = callOptions(context);
  const [tag] = (await backends.stories.batchGetTags({ ids: [id] }, options)).tags;
  if (tag === undefined) throw AppError.notFound('tag');
  const { stories } = await backends.stories.listStories({ filter: { tagIds: [tag.id] }, sort: { field: StorySortField.DATE_PUBLISHED, direction: SortDirection.DESCENDING }, pageSize: FEED_MAX_ENTRIES }, options);
  const people = await persons(context, stories.map((story) => story.authorId));
  const entries = stories.map((story) => storyEntry(story, links, people));
  // A tag id (`g:3`) is a valid path segment as it is: the feed's URL is the one its docs give.
  const path = `/feeds/tags/${tag.id}.atom`;
  return {
    id: links.site(path),
    title: `New stories tagged ${tag.name}`,
    updated: newest(entries, NEVER),
    self: links.site(path),
    alternate: links.to(`/stories?filter%5Btags%5D=${encodeURIComponent(tag.id)}`),
    authors: [{ name: 'Inkwell', uri: links.apiBase }],
    entries,
  };
}

/** A public shelf's stories by their last update (date_updated descending); a private shelf is NOT_FOUND to the public. */
async function bookshelfFeed(id: string, context: FeedContext): Promise<AtomFeed> {
  const { backends, links } = context;
  const options = callOptions(context);
  const [{ bookshelf }, { stories }] = await Promise.all([
    backends.bookshelves.getBookshelf({ id }, options),
    backends.stories.listStories({ filter: { bookshelfId: id }, sort: { field: StorySortField.DATE_UPDATED, direction: SortDirection.DESCENDING }, pageSize: FEED_MAX_ENTRIES }, options),
  ]);
  if (bookshelf === undefined) throw AppError.notFound('bookshelf');
  const people = await persons(context, [bookshelf.userId, ...stories.map((story) => story.authorId)]);
  const entries = stories.map((story) => storyEntry(story, links, people));
  return {
    id: links.site(`/feeds/bookshelves/${id}.atom`),
    title: bookshelf.name,
    subtitle: bookshelf.description,
    updated: newest(entries, shelfDate(bookshelf)),
    self: links.site(`/feeds/bookshelves/${id}.atom`),
    alternate: links.to(`/bookshelves/${id}`),
    authors: [people.get(bookshelf.userId) ?? unknownPerson(bookshelf.userId, links)],
    entries,
  };
}

/**
 * The newest notifications of a feed token's owner; an unknown, revoked or replaced token is
 * NOT_FOUND. Two calls, the second needing the first: the service finds the token and the
 * notifications in one statement, and the owner's and actors' names mostly come from the
 * gateway's public cache (cachedUsersClient's batchGetUsers).
 */
async function notificationsFeed(token: string, context: FeedContext): Promise<AtomFeed> {
  const { backends, links } = context;
  const options = callOptions(context);
  const { userId, notifications } = await backends.notifications.listNotificationsByFeedToken({ token }, options);
  const people = await persons(context, [userId, ...notifications.map((notification) => notification.actorId)]);
  const owner = people.get(userId) ?? unknownPerson(userId, links);
  const host = new URL(links.apiBase).hostname;
  const entries = notifications.slice(0, FEED_MAX_ENTRIES).map((notification) => notificationEntry(notification, people, links, host));
  const self = links.site(`/feeds/notifications/${token}.atom`);
  return {
    // Not the URL: a new token must not make readers see a new feed.
    id: tagUri(host, `users/${userId}/notifications`),
    title: `Notifications of ${owner.name}`,
    updated: newest(entries, NEVER),
    self,
    alternate: links.to(`/users/${userId}/notifications`),
    authors: [owner],
    entries,
  };
}

function chapterEntry(chapter: Chapter, storyTitle: string | undefined, links: ApiLinks): AtomEntry {
  const url = links.to(`/chapters/${chapter.id}`);
  const published = date(chapter.datePublished);
  return {
    id: url,
    title: `${storyTitle === undefined ? '' : `${storyTitle}: `}Chapter ${chapter.chapterNumber}: ${chapter.title}`,
    updated: later(date(chapter.dateModified), published),
    ...(published === undefined ? {} : { published }),
    alternate: url,
    categories: ['chapter'],
  };
}

function storyEntry(story: Story, links: ApiLinks, people?: ReadonlyMap<string, AtomPerson>): AtomEntry {
  const url = links.to(`/stories/${story.id}`);
  const published = date(story.datePublished);
  return {
    id: url,
    title: story.title,
    updated: later(later(date(story.dateModified), date(story.dateUpdated)), published),
    ...(published === undefined ? {} : { published }),
    alternate: url,
    ...(people === undefined ? {} : { authors: [people.get(story.authorId) ?? unknownPerson(story.authorId, links)] }),
    summary: story.shortDescription,
    categories: ['story'],
  };
}

function blogPostEntry(post: BlogPost, links: ApiLinks): AtomEntry {
  const url = links.to(`/blog-posts/${post.id}`);
  const published = date(post.datePosted);
  return {
    id: url,
    title: post.title,
    updated: later(date(post.dateModified), published),
    ...(published === undefined ? {} : { published }),
    alternate: url,
    summary: post.intro,
    categories: ['blog_post'],
  };
}

/** What each kind of notification says, and the API resource it is about. */
const NOTIFICATION_TEXT: Readonly<Record<NotificationKind, { readonly term: string; text(actor: string): string; subject(n: Notification): string | undefined }>> = {
  [NotificationKind.UNSPECIFIED]: { term: 'notification', text: (actor) => `News from ${actor}`, subject: () => undefined },
  [NotificationKind.CHAPTER_PUBLISHED]: { term: 'chapter_published', text: (actor) => `${actor} published a new chapter`, subject: (n) => n.chapterId && `/chapters/${n.chapterId}` },
  [NotificationKind.STORY_PUBLISHED]: { term: 'story_published', text: (actor) => `${actor} published a new story`, subject: (n) => n.storyId && `/stories/${n.storyId}` },
  [NotificationKind.NEW_FOLLOWER]: { term: 'new_follower', text: (actor) => `${actor} follows you now`, subject: (n) => `/users/${n.actorId}` },
  [NotificationKind.STORY_COMMENT]: { term: 'story_comment', text: (actor) => `${actor} commented on your story`, subject: (n) => n.storyId && `/stories/${n.storyId}/comments` },
  [NotificationKind.PRIVATE_MESSAGE]: { term: 'private_message', text: (actor) => `${actor} sent you a private message`, subject: (n) => n.privateMessageId && `/private-messages/${n.privateMessageId}` },
  [NotificationKind.BLOG_POST]: { term: 'blog_post', text: (actor) => `${actor} posted on their blog`, subject: (n) => n.blogPostId && `/blog-posts/${n.blogPostId}` },
};

function notificationEntry(notification: Notification, people: ReadonlyMap<string, AtomPerson>, links: ApiLinks, host: string): AtomEntry {
  const kind = NOTIFICATION_TEXT[notification.kind] ?? NOTIFICATION_TEXT[NotificationKind.UNSPECIFIED];
  const actor = people.get(notification.actorId) ?? unknownPerson(notification.actorId, links);
  const created = date(notification.dateCreated) ?? NEVER;
  return {
    id: tagUri(host, `notifications/${notification.id}`),
    title: kind.text(actor.name),
    updated: created,
    published: created,
    alternate: links.to(kind.subject(notification) ?? `/users/${notification.actorId}`),
    authors: [actor],
    categories: [kind.term],
  };
}

/** Calls made for no user: the services' public visibility rules apply (docs/api/updates.md, "Atom feeds"). */
function callOptions(context: FeedContext): { caller: CallerContext; signal?: AbortSignal } {
  return context.signal === undefined ? { caller: context.caller } : { caller: context.caller, signal: context.signal };
}

async function person(context: FeedContext, userId: string): Promise<AtomPerson> {
  const { user } = await context.backends.users.getUser({ id: userId }, callOptions(context));
  return user === undefined ? unknownPerson(userId, context.links) : personOf(user, context.links);
}

/** The users among `ids` (each once) as atom:author, by id; those the users service left out are missing. */
async function persons(context: FeedContext, ids: readonly string[]): Promise<Map<string, AtomPerson>> {
  const wanted = [...new Set(ids)].filter((id) => id !== '' && id !== '0');
  if (wanted.length === 0) return new Map();
  const { users } = await context.backends.users.batchGetUsers({ ids: wanted }, callOptions(context));
  return new Map(users.map((user) => [user.id, personOf(user, context.links)]));
}

function personOf(user: User, links: ApiLinks): AtomPerson {
  return { name: user.name, uri: links.to(`/users/${user.id}`) };
}

function unknownPerson(userId: string, links: ApiLinks): AtomPerson {
  return { name: `User ${userId}`, uri: links.to(`/users/${userId}`) };
}

/** `tag:<host>,<date>:<specific>` (RFC 4151) for ids that must not depend on a URL carrying a secret; `host` is the API's. */
function tagUri(host: string, specific: string): string {
  return `tag:${host},${TAG_URI_DATE}:${specific}`;
}

function date(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

function later(a: Date | undefined, b: Date | undefined): Date {
  if (a === undefined) return b ?? NEVER;
  return b !== undefined && b > a ? b : a;
}

function shelfDate(bookshelf: Bookshelf): Date {
  return date(bookshelf.dateModified) ?? date(bookshelf.dateCreated) ?? NEVER;
}

/** The feed's atom:updated: its newest entry's, or `fallback` for an empty feed (never the clock, so the bytes stay the same). */
function newest(entries: readonly AtomEntry[], fallback: Date): Date {
  return entries.reduce((max, entry) => (entry.updated > max ? entry.updated : max), fallback);
}

/** Newest publication first; then the newest change; then by id, so the order is stable. */
function newestFirst(a: AtomEntry, b: AtomEntry): number {
  const time = (b.published ?? b.updated).getTime() - (a.published ?? a.updated).getTime();
  if (time !== 0) return time;
  const changed = b.updated.getTime() - a.updated.getTime();
  return changed !== 0 ? changed : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
