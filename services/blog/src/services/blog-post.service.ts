import { AppError, ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { renderMarkdown } from '@inkwell/markdown';
import { isId, readerKey, readerOf, VIEW_WINDOW_SECONDS, type BlogPost, type Caller } from '../domain/blog-post.js';
import {
  POINTERS,
  validateChanges,
  validateNewPost,
  validateSitePostTag,
  normaliseTag,
  tagProblem,
  type NewPostInput,
  type PostChanges,
  type Problem,
} from '../domain/blog-post-input.js';
import { decodeKeyset, DEFAULT_PAGE_SIZE, DEFAULT_SORT, encodeKeyset, type BlogPostFilter, type BlogPostSort } from '../domain/blog-post-list.js';
import { introFromHtml } from '../domain/intro.js';
import type { BlogPostRepository, BlogPostUpdate } from '../repositories/blog-post.repository.js';
import type { KnownStoryRepository } from '@inkwell/known-stories';
import type { ViewRepository } from '../repositories/view.repository.js';

/**
 * A list request as the transport decoded it. Its bounds (page size, query length, filter ids,
 * a date range in order, relevance only with a query) are the rules of ListBlogPostsRequest,
 * checked before the service runs.
 */
export interface ListRequest {
  query: string;
  filter: BlogPostFilter;
  /** Undefined for the default order. */
  sort: BlogPostSort | undefined;
  /** 0 for the default. */
  pageSize: number;
  /** Empty for the first page. */
  after: string;
  includeContent: boolean;
}

/**
 * Most bytes of content and content_html one list page carries (UTF-8). A page asked for with
 * content ends before the post that would go over it, so a response stays far below gRPC's
 * message limits; the next page starts there.
 */
export const MAX_PAGE_CONTENT_BYTES = 16 * 1024 * 1024;

/** One page of posts; `nextAfter` is empty on the last page. */
export interface ListResult {
  posts: BlogPost[];
  nextAfter: string;
}

/** A site post as the operator writes it. */
export interface SitePostInput {
  title: string;
  content: string;
  tag?: string;
}

/** What the blog rules read and write of posts: BlogPostRepository, or a memory store in unit tests. */
export type BlogPostStore = Pick<BlogPostRepository, 'findById' | 'list' | 'create' | 'update' | 'delete' | 'recordViews'>;

/** Which linked stories are published, from the copy of the stories (KnownStoryRepository). */
export type PublishedStories = Pick<KnownStoryRepository, 'publishedAmong'>;

/** The per-reader view windows (ViewRepository). */
export type ViewWindows = Pick<ViewRepository, 'claim' | 'release'>;

/** What the blog rules need. */
export interface BlogPostServiceDeps {
  posts: BlogPostStore;
  stories: PublishedStories;
  views: ViewWindows;
  logger: Logger;
}

/**
 * The rules about blog posts: tags, who may change what (authors their own posts; site posts
 * nobody through the API), which stories may be linked, and view counting. The limits of the
 * requests are their rules in blog_service.proto, and writes need a signed-in user holding
 * write_blog_posts (their access option), both checked before the service runs.
 */
export class BlogPostService {
  private readonly posts: BlogPostStore;
  private readonly stories: PublishedStories;
  private readonly views: ViewWindows;
  private readonly logger: Logger;

  constructor(deps: BlogPostServiceDeps) {
    this.posts = deps.posts;
    this.stories = deps.stories;
    this.views = deps.views;
    this.logger = deps.logger;
  }

  /** The post `id`; NOT_FOUND for unknown or malformed ids. With content, counts the caller's view. */
  async getBlogPost(id: string, includeContent: boolean, caller: Caller): Promise<BlogPost> {
    const post = isId(id) ? await this.posts.findById(id, includeContent) : undefined;
    if (!post) throw AppError.notFound('blog post');
    if (includeContent) await this.countViews([post], caller);
    return post;
  }

  /**
   * One page of posts. INVALID_ARGUMENT (with the query parameter named) for a tag no post could
   * carry, or an `after` made for another sort (invalid_cursor).
   */
  async listBlogPosts(request: ListRequest, caller: Caller): Promise<ListResult> {
    const query = request.query.trim();
    const sort = request.sort ?? DEFAULT_SORT;
    const filter = normaliseFilter(request.filter);
    const after = request.after === '' ? undefined : decodeKeyset(sort, request.after);
    if (request.after !== '' && after === undefined) throw AppError.badParameter('page[cursor]', 'The cursor is not valid for this list.', 'invalid_cursor');

    const page = await this.posts.list({
      query,
      filter,
      sort,
      pageSize: request.pageSize === 0 ? DEFAULT_PAGE_SIZE : request.pageSize,
      ...(after === undefined ? {} : { after }),
      includeContent: request.includeContent,
    });
    // A page with content ends early once it carries MAX_PAGE_CONTENT_BYTES (always at least one post).
    let count = page.posts.length;
    if (request.includeContent) {
      let bytes = 0;
      count = page.posts.findIndex((post, index) => {
        bytes += Buffer.byteLength(post.content ?? '') + Buffer.byteLength(post.contentHtml ?? '');
        return index > 0 && bytes > MAX_PAGE_CONTENT_BYTES;
      });
      if (count === -1) count = page.posts.length;
    }
    const posts = page.posts.slice(0, count);
    const next = count < page.posts.length || page.more ? page.keysets[count - 1] : undefined;
    if (request.includeContent) await this.countViews(posts, caller);
    return { posts, nextAfter: next === undefined ? '' : encodeKeyset(sort, next) };
  }

  /**
   * Posts a user post as the caller; 422-style INVALID_ARGUMENT for every invalid tag, then for
   * stories that are not published. Nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async createBlogPost(input: NewPostInput, caller: Caller, signal?: AbortSignal): Promise<BlogPost> {
    const authorId = requireWriter(caller);
    const checked = validateNewPost(input);
    if (!checked.ok) throw validationError(checked.problems);
    await this.requirePublishedStories(checked.value.storyIds);
    const html = await renderMarkdown(checked.value.content, { pointer: POINTERS.content, caller, signal });
    return this.posts.create({
      authorId,
      title: checked.value.title,
      content: checked.value.content,
      contentHtml: html,
      intro: introFromHtml(html),
      tags: checked.value.tags,
      storyIds: checked.value.storyIds,
      sitePost: false,
      sitePostTag: undefined,
    }, signal);
  }

  /**
   * Changes a post: NOT_FOUND when there is none, 403 site_post_immutable for a site post,
   * 403 forbidden for another user's post, then the tags and stories; all before the content is rendered.
   * Nothing is stored once `signal` has aborted (docs/api/foundation.md, "Markdown").
   */
  async updateBlogPost(id: string, changes: PostChanges, caller: Caller, signal?: AbortSignal): Promise<BlogPost> {
    await this.requireEditable(id, caller);
    const checked = validateChanges(changes);
    if (!checked.ok) throw validationError(checked.problems);
    const valid = checked.value;
    if (valid.storyIds !== undefined) await this.requirePublishedStories(valid.storyIds);
    const update: BlogPostUpdate = {};
    if (valid.title !== undefined) update.title = valid.title;
    if (valid.content !== undefined) {
      const html = await renderMarkdown(valid.content, { pointer: POINTERS.content, caller, signal });
      update.content = { markdown: valid.content, html, intro: introFromHtml(html) };
    }
    if (valid.tags !== undefined) update.tags = valid.tags;
    if (valid.storyIds !== undefined) update.storyIds = valid.storyIds;
    const updated = await this.posts.update(id, update, signal);
    if (!updated) throw AppError.notFound('blog post');
    return updated;
  }

  /**
   * The post `id` when `caller` may change or delete it, refused otherwise in the order of
   * docs/api/blog.md (404, 403 site_post_immutable, 403 forbidden); changes nothing.
   */
  async checkEditable(id: string, caller: Caller): Promise<BlogPost> {
    return this.requireEditable(id, caller);
  }

  /** Deletes a post, with the same rules as updateBlogPost. */
  async deleteBlogPost(id: string, caller: Caller): Promise<void> {
    await this.requireEditable(id, caller);
    if (!(await this.posts.delete(id))) throw AppError.notFound('blog post');
  }

  /**
   * Posts a site post (operator CLI only; no RPC reaches this). Its title and content meet the
   * rules of CreateBlogPostRequest (the CLI checks them: create-site-post.command.ts); the title
   * is stored trimmed and the tag normalised like post tags.
   */
  async createSitePost(input: SitePostInput): Promise<BlogPost> {
    const tag = validateSitePostTag(input.tag);
    if (!tag.ok) throw validationError([{ pointer: '/site_post_tag', detail: tag.detail }]);
    const html = await renderMarkdown(input.content, { pointer: POINTERS.content });
    return this.posts.create({
      authorId: undefined,
      title: input.title.trim(),
      content: input.content,
      contentHtml: html,
      intro: introFromHtml(html),
      tags: [],
      storyIds: [],
      sitePost: true,
      sitePostTag: tag.value,
    });
  }

  private async requireEditable(id: string, caller: Caller): Promise<BlogPost> {
    const userId = requireWriter(caller);
    const post = isId(id) ? await this.posts.findById(id, false) : undefined;
    if (!post) throw AppError.notFound('blog post');
    if (post.sitePost) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, 'Site posts cannot be edited or deleted through the API.', { details: [{ reason: 'site_post_immutable' }] });
    }
    if (post.authorId !== userId) throw AppError.forbidden('Only the author can change this blog post.');
    return post;
  }

  private async requirePublishedStories(storyIds: readonly string[]): Promise<void> {
    const wellFormed = storyIds.filter(isId);
    const published = await this.stories.publishedAmong(wellFormed);
    const missing = storyIds.filter((storyId) => !published.has(storyId));
    if (missing.length > 0) {
      throw validationError(missing.map((storyId) => ({ pointer: POINTERS.stories, detail: `Story ${storyId} does not exist or is not published.` })));
    }
  }

  /**
   * Counts a view of each post for the caller's reader, once per 24 hours, and updates the
   * returned counts. Counting never fails the read: on trouble the windows are given back and
   * the failure is logged.
   */
  private async countViews(posts: BlogPost[], caller: Caller): Promise<void> {
    const reader = readerOf(caller);
    if (reader === undefined || posts.length === 0) return;
    const key = readerKey(reader);
    let claimed: string[] = [];
    try {
      claimed = await this.views.claim(posts, key, VIEW_WINDOW_SECONDS);
      const counts = await this.posts.recordViews(claimed, reader);
      for (const post of posts) post.numViews = counts.get(post.id) ?? post.numViews;
    } catch (error) {
      this.logger.warn({ err: error, posts: claimed }, 'could not count blog post views');
      const unclaimed = posts.filter((post) => claimed.includes(post.id));
      await this.views.release(unclaimed, key).catch(() => undefined);
    }
  }
}

/** The writing user: every write RPC needs one with write_blog_posts (docs/api/blog.md, "Writing"; their access option). */
function requireWriter(caller: Caller): string {
  if (caller.userId === undefined) throw new Error('Blog posts are written only by a signed-in user.');
  return caller.userId;
}

function validationError(problems: readonly Problem[]): AppError {
  const first = problems[0];
  return new AppError(ErrorCode.INVALID_ARGUMENT, first?.detail ?? 'The blog post is not valid.', {
    details: problems.map((problem) => ({ reason: 'validation_failed', pointer: problem.pointer, detail: problem.detail })),
  });
}

/** A filter's tag in normal form, or 400 naming `parameter` when no post could carry it (docs/api/blog.md). */
function filterTag(parameter: string, tag: string): string {
  const normalised = normaliseTag(tag);
  const problem = tagProblem(normalised);
  if (problem !== undefined) throw AppError.badParameter(parameter, `A tag in ${parameter} ${problem}.`);
  return normalised;
}

function normaliseFilter(filter: BlogPostFilter): BlogPostFilter {
  const normalised: BlogPostFilter = { ...filter };
  if (filter.tags !== undefined) normalised.tags = [...new Set(filter.tags.map((tag) => filterTag('filter[tags]', tag)))];
  if (filter.sitePostTag !== undefined) normalised.sitePostTag = filterTag('filter[site_post_tag]', filter.sitePostTag);
  return normalised;
}
