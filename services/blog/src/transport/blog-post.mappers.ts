import { create } from '@bufbuild/protobuf';
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  BlogPostSchema,
  BlogPostSortField,
  SortDirection,
  type BlogPost as ProtoBlogPost,
  type BlogPostFilter as ProtoBlogPostFilter,
  type BlogPostSort as ProtoBlogPostSort,
  type ListBlogPostsRequest,
  type UpdateBlogPostRequest,
} from '@inkwell/proto/blog';
import type { BlogPost } from '../domain/blog-post.js';
import type { PostChanges } from '../domain/blog-post-input.js';
import type { BlogPostFilter, BlogPostSort, SortField } from '../domain/blog-post-list.js';
import type { ListRequest } from '../services/blog-post.service.js';

/** Domain post → proto BlogPost; content and content_html are set exactly when loaded. */
export function toProtoBlogPost(post: BlogPost): ProtoBlogPost {
  return create(BlogPostSchema, {
    id: post.id,
    authorId: post.authorId ?? '0',
    title: post.title,
    ...(post.content === undefined ? {} : { content: post.content, contentHtml: post.contentHtml ?? '' }),
    intro: post.intro,
    tags: post.tags,
    storyIds: post.storyIds,
    datePosted: timestampFromDate(post.datePosted),
    dateModified: timestampFromDate(post.dateModified),
    numViews: post.numViews,
    sitePost: post.sitePost,
    ...(post.sitePostTag === undefined ? {} : { sitePostTag: post.sitePostTag }),
  });
}

const SORT_FIELDS: Readonly<Partial<Record<BlogPostSortField, SortField>>> = {
  [BlogPostSortField.DATE_POSTED]: 'date_posted',
  [BlogPostSortField.NUM_VIEWS]: 'num_views',
  [BlogPostSortField.RELEVANCE]: 'relevance',
};

/** ListBlogPostsRequest → the service's list request (validation happens in the service). */
export function fromListRequest(request: ListBlogPostsRequest): ListRequest {
  return {
    query: request.query,
    filter: { ...fromFilter(request.filter), ...(request.hiddenAuthorIds.length > 0 ? { hiddenAuthorIds: request.hiddenAuthorIds } : {}) },
    sort: fromSort(request.sort),
    pageSize: request.pageSize,
    after: request.after,
    includeContent: request.includeContent,
  };
}

/** UpdateBlogPostRequest → the changes it asks for (unset fields are absent). */
export function fromUpdateRequest(request: UpdateBlogPostRequest): PostChanges {
  const changes: PostChanges = {};
  if (request.title !== undefined) changes.title = request.title;
  if (request.content !== undefined) changes.content = request.content;
  if (request.tags !== undefined) changes.tags = request.tags.tags;
  if (request.stories !== undefined) changes.storyIds = request.stories.storyIds;
  return changes;
}

function fromSort(sort: ProtoBlogPostSort | undefined): BlogPostSort | undefined {
  const field = sort === undefined ? undefined : SORT_FIELDS[sort.field];
  if (sort === undefined || field === undefined) return undefined;
  return { field, direction: sort.direction === SortDirection.DESCENDING ? 'desc' : 'asc' };
}

function fromFilter(filter: ProtoBlogPostFilter | undefined): BlogPostFilter {
  const result: BlogPostFilter = {};
  if (filter === undefined) return result;
  if (filter.ids.length > 0) result.ids = filter.ids;
  if (filter.authorId !== undefined) result.authorId = filter.authorId;
  if (filter.tags.length > 0) result.tags = filter.tags;
  if (filter.sitePost !== undefined) result.sitePost = filter.sitePost;
  if (filter.sitePostTag !== undefined) result.sitePostTag = filter.sitePostTag;
  if (filter.datePostedMin !== undefined) result.datePostedMin = toMillis(filter.datePostedMin, 'ceil');
  if (filter.datePostedMax !== undefined) result.datePostedMax = toMillis(filter.datePostedMax, 'floor');
  return result;
}

/**
 * A Timestamp bound as a millisecond Date. Stored dates have millisecond precision, so rounding
 * a minimum up and a maximum down keeps both bounds exactly inclusive (a maximum of
 * 23:59:59.999999999 still takes a post at 23:59:59.999).
 */
function toMillis(timestamp: Timestamp, rounding: 'ceil' | 'floor'): Date {
  const subMillis = timestamp.nanos / 1_000_000;
  return new Date(Number(timestamp.seconds) * 1000 + (rounding === 'ceil' ? Math.ceil(subMillis) : Math.floor(subMillis)));
}
