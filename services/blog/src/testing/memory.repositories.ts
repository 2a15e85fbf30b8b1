import { createRecordingLogger } from '@inkwell/logging';
import { MemorySequence } from '@inkwell/testing/memory';
import type { BlogPost, Reader } from '../domain/blog-post.js';
import type { BlogPostListQuery } from '../domain/blog-post-list.js';
import type { BlogPostPage, BlogPostUpdate, NewBlogPost } from '../repositories/blog-post.repository.js';
import type { ViewedPost } from '../repositories/view.repository.js';
import { BlogPostService, type BlogPostStore, type PublishedStories, type ViewWindows } from '../services/blog-post.service.js';

/** A post as stored: its content always, and every story it links (shown only while published). */
type StoredPost = Omit<BlogPost, 'content' | 'contentHtml'> & { content: string; contentHtml: string };

/**
 * The blog's published stories as its copy of the stories knows them: the ids in `published`.
 * Tests publish and unpublish by changing the set.
 */
export class MemoryPublishedStories implements PublishedStories {
  readonly published = new Set<string>();

  async publishedAmong(storyIds: readonly string[]): Promise<Set<string>> {
    return new Set(storyIds.filter((id) => this.published.has(id)));
  }
}

/**
 * BlogPostRepository in memory: increasing numeric ids, posts strictly later one after another,
 * links shown only to published stories, site posts never changed or deleted, lists in the same
 * order and keysets as the SQL (search is a case-insensitive substring of title, tags or content).
 */
export class MemoryBlogPostRepository implements BlogPostStore {
  readonly posts = new Map<string, StoredPost>();
  /** Counted views, as the BlogPostViewed events the repository writes. */
  readonly views: { postId: string; reader: Reader }[] = [];
  readonly #sequence = new MemorySequence();

  constructor(private readonly stories: MemoryPublishedStories) {}

  async findById(id: string, includeContent: boolean): Promise<BlogPost | undefined> {
    const post = this.posts.get(id);
    return post && this.#shown(post, includeContent);
  }

  async list(query: BlogPostListQuery): Promise<BlogPostPage> {
    const { filter, sort } = query;
    const text = query.query.toLowerCase();
    const value = (post: StoredPost) => (sort.field === 'num_views' ? post.numViews : sort.field === 'date_posted' ? post.datePosted.getTime() : 1);
    const direction = sort.direction === 'asc' ? 1 : -1;
    const after = query.after;
    const rest = [...this.posts.values()]
      .filter((post) => text === '' || [post.title, ...post.tags, post.content].some((field) => field.toLowerCase().includes(text)))
      .filter((post) => filter.ids === undefined || filter.ids.includes(post.id))
      .filter((post) => filter.authorId === undefined || post.authorId === filter.authorId)
      .filter((post) => filter.tags === undefined || post.tags.some((tag) => filter.tags!.includes(tag)))
      .filter((post) => filter.sitePost === undefined || post.sitePost === filter.sitePost)
      .filter((post) => filter.sitePostTag === undefined || post.sitePostTag === filter.sitePostTag)
      .filter((post) => (filter.datePostedMin === undefined || post.datePosted >= filter.datePostedMin) && (filter.datePostedMax === undefined || post.datePosted <= filter.datePostedMax))
      .sort((a, b) => (value(a) - value(b) || Number(a.id) - Number(b.id)) * direction)
      .filter((post) => after === undefined || (value(post) - Number(after.value) || Number(post.id) - Number(after.id)) * direction > 0);
    const page = rest.slice(0, query.pageSize);
    return { posts: page.map((post) => this.#shown(post, query.includeContent)), keysets: page.map((post) => ({ value: String(value(post)), id: post.id })), more: rest.length > query.pageSize };
  }

  async create(post: NewBlogPost, signal?: AbortSignal): Promise<BlogPost> {
    signal?.throwIfAborted();
    const now = this.#sequence.now();
    const stored: StoredPost = {
      id: this.#sequence.nextId(),
      authorId: post.authorId,
      title: post.title,
      content: post.content,
      contentHtml: post.contentHtml,
      intro: post.intro,
      tags: [...post.tags],
      storyIds: [...post.storyIds],
      datePosted: now,
      dateModified: now,
      numViews: 0,
      sitePost: post.sitePost,
      sitePostTag: post.sitePostTag,
    };
    this.posts.set(stored.id, stored);
    return this.#shown(stored, true);
  }

  async update(id: string, update: BlogPostUpdate, signal?: AbortSignal): Promise<BlogPost | undefined> {
    const post = this.posts.get(id);
    if (!post || post.sitePost) return undefined;
    signal?.throwIfAborted();
    if (update.title !== undefined) post.title = update.title;
    if (update.content !== undefined) Object.assign(post, { content: update.content.markdown, contentHtml: update.content.html, intro: update.content.intro });
    if (update.tags !== undefined) post.tags = [...update.tags];
    if (update.storyIds !== undefined) post.storyIds = [...update.storyIds];
    post.dateModified = this.#sequence.now();
    return this.#shown(post, true);
  }

  async delete(id: string): Promise<boolean> {
    const post = this.posts.get(id);
    if (!post || post.sitePost) return false;
    return this.posts.delete(id);
  }

  async recordViews(postIds: readonly string[], reader: Reader): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const id of postIds) {
      const post = this.posts.get(id);
      if (!post) continue;
      post.numViews += 1;
      this.views.push({ postId: id, reader });
      counts.set(id, post.numViews);
    }
    return counts;
  }

  #shown(post: StoredPost, includeContent: boolean): BlogPost {
    const { content, contentHtml, ...rest } = post;
    const shown: BlogPost = { ...rest, tags: [...post.tags], storyIds: post.storyIds.filter((id) => this.stories.published.has(id)) };
    return includeContent ? { ...shown, content, contentHtml } : shown;
  }
}

/** The view windows in memory: claimed once per reader and post until released (the window never passes here). */
export class MemoryViewWindows implements ViewWindows {
  readonly #claimed = new Set<string>();

  async claim(posts: readonly ViewedPost[], readerKey: string): Promise<string[]> {
    return posts.filter((post) => {
      const key = `${post.id}:${readerKey}`;
      if (this.#claimed.has(key)) return false;
      this.#claimed.add(key);
      return true;
    }).map((post) => post.id);
  }

  async release(posts: readonly ViewedPost[], readerKey: string): Promise<void> {
    for (const post of posts) this.#claimed.delete(`${post.id}:${readerKey}`);
  }
}

/** BlogPostService over memory repositories, and the stores to arrange and inspect. */
export function memoryBlog(): { posts: BlogPostService; store: MemoryBlogPostRepository; stories: MemoryPublishedStories; views: MemoryViewWindows } {
  const stories = new MemoryPublishedStories();
  const store = new MemoryBlogPostRepository(stories);
  const views = new MemoryViewWindows();
  return { posts: new BlogPostService({ posts: store, stories, views, logger: createRecordingLogger('blog-unit').logger }), store, stories, views };
}
