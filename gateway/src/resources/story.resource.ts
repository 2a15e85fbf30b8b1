import { ContentRating, StoryStatus, type Story } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, identifierIds, writeValues } from '../lists/index.js';
import { timestampToApiDate } from './user.resource.js';

/** The JSON:API type of stories. */
export const STORY_TYPE = 'story';

/** The public values of story `status` (docs/api/foundation.md, "Resource types"), in API order. */
export const STORY_STATUSES = ['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const;
/** A public story status. */
export type StoryStatusValue = (typeof STORY_STATUSES)[number];

/** The public values of story `content_rating` (docs/api/foundation.md, "Resource types"). */
export const CONTENT_RATINGS = ['everyone', 'teen', 'mature'] as const;
/** A public content rating. */
export type ContentRatingValue = (typeof CONTENT_RATINGS)[number];

const STATUS_TO_PROTO: Readonly<Record<StoryStatusValue, StoryStatus>> = {
  complete: StoryStatus.COMPLETE,
  incomplete: StoryStatus.INCOMPLETE,
  'on-hiatus': StoryStatus.ON_HIATUS,
  cancelled: StoryStatus.CANCELLED,
};
const RATING_TO_PROTO: Readonly<Record<ContentRatingValue, ContentRating>> = {
  everyone: ContentRating.EVERYONE,
  teen: ContentRating.TEEN,
  mature: ContentRating.MATURE,
};

/** The proto enum of a public status (for filters and writes). */
export function storyStatusToProto(status: StoryStatusValue): StoryStatus {
  return STATUS_TO_PROTO[status];
}

/** The proto enum of a public content rating (for writes). */
export function contentRatingToProto(rating: ContentRatingValue): ContentRating {
  return RATING_TO_PROTO[rating];
}

function statusOf(status: StoryStatus): StoryStatusValue | null {
  return STORY_STATUSES.find((value) => STATUS_TO_PROTO[value] === status) ?? null;
}

function contentRatingOf(rating: ContentRating): ContentRatingValue | null {
  return CONTENT_RATINGS.find((value) => RATING_TO_PROTO[value] === rating) ?? null;
}

/**
 * The story type (docs/api/foundation.md, "Resource types"). Tags are the writable `tags` relationship; there is no tags
 * attribute. Nothing is heavy: `description` is bounded and part of every listing.
 */
export const STORY_SCHEMA = defineResourceSchema({
  type: STORY_TYPE,
  description: 'A story: its text lives in its chapters.',
  attributes: {
    title: at.string(),
    short_description: at.string(),
    description: at.string('Markdown.'),
    description_html: at.html('description'),
    status: at.enumeration(STORY_STATUSES, undefined, { nullable: true }),
    content_rating: at.enumeration(CONTENT_RATINGS, undefined, { nullable: true }),
    published: at.boolean('`false` = unsubmitted (a draft).'),
    num_words: at.integer('Words of the published chapters.', { minimum: 0 }),
    num_chapters: at.integer('Published chapters.', { minimum: 0 }),
    num_views: at.integer(undefined, { minimum: 0 }),
    num_likes: at.integer(undefined, { minimum: 0 }),
    num_dislikes: at.integer(undefined, { minimum: 0 }),
    num_comments: at.integer(undefined, { minimum: 0 }),
    rating: at.integer('0–100; null without votes.', { nullable: true, minimum: 0, maximum: 100 }),
    hotness: at.number('Higher is hotter (docs/api/stories.md).'),
    date_published: at.dateTime('Null until first published.', { nullable: true }),
    date_modified: at.dateTime(undefined, { nullable: true }),
    date_updated: at.dateTime('When a chapter was last published.', { nullable: true }),
  },
  relationships: { author: { type: 'user', many: false }, chapters: { type: 'chapter', many: true }, tags: { type: 'tag', many: true } },
});

/**
 * What POST/PATCH /stories accept: the W attributes of docs/api/foundation.md, "Resource types" with the limits of docs/api/stories.md, "Writing", and
 * the `tags` relationship (ids `c:<n>`/`g:<n>`). `title` is required on create; the service
 * applies the defaults and the publishing rules.
 */
export const STORY_WRITE = defineWriteSpec({
  resource: STORY_SCHEMA,
  attributes: {
    title: writeValues.string(),
    short_description: writeValues.string(),
    description: writeValues.string(),
    status: writeValues.enumeration(STORY_STATUSES),
    content_rating: writeValues.enumeration(CONTENT_RATINGS),
    published: writeValues.boolean(),
  },
  relationships: { tags: { type: 'tag', many: true, id: identifierIds.tag(), maxItems: 100 } },
  required: ['title'],
});

/**
 * Maps a stories.v1 Story to its JSON:API resource: dates in ISO 8601 UTC or null (never the
 * epoch), `rating` null without votes, linkage to the author, the chapters the caller may see
 * (in chapter order) and the tags; `links.self` = PUBLIC_BASE_URL/api/v1/stories/<id>.
 */
export function toStoryResource(story: Story, links: ApiLinks): ResourceObject {
  return resourceObject(
    STORY_TYPE,
    story.id,
    {
      title: story.title,
      short_description: story.shortDescription,
      description: story.description,
      description_html: story.descriptionHtml,
      status: statusOf(story.status),
      content_rating: contentRatingOf(story.contentRating),
      published: story.published,
      num_words: story.numWords,
      num_chapters: story.numChapters,
      num_views: story.numViews,
      num_likes: story.numLikes,
      num_dislikes: story.numDislikes,
      num_comments: story.numComments,
      rating: story.rating ?? null,
      hotness: story.hotness,
      date_published: timestampToApiDate(story.datePublished),
      date_modified: timestampToApiDate(story.dateModified),
      date_updated: timestampToApiDate(story.dateUpdated),
    },
    {
      relationships: {
        author: { data: { type: 'user', id: story.authorId } },
        chapters: { data: story.chapterIds.map((id) => ({ type: 'chapter', id })) },
        tags: { data: story.tagIds.map((id) => ({ type: 'tag', id })) },
      },
      self: links.to(`/stories/${story.id}`),
    },
  );
}
