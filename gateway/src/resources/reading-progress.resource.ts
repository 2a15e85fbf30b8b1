import { ReadingProgressSchema, type ReadingProgress } from '@inkwell/proto/stories';
import { resourceObject, type Relationship, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../jsonapi/index.js';
import { CHAPTER_TYPE } from './chapter.resource.js';
import { protoResourceMapper } from './proto-resource.js';
import { STORY_TYPE } from './story.resource.js';

/** The JSON:API type of reading progress. */
export const READING_PROGRESS_TYPE = 'reading_progress';

/**
 * The reading_progress type (docs/api/stories.md, "Reading progress"): how far the caller has
 * read one story. Its id is the story's id (one per story in the caller's own list).
 */
export const READING_PROGRESS_SCHEMA = defineResourceSchema({
  type: READING_PROGRESS_TYPE,
  description: 'How far you have read one story: its id is the story id.',
  attributes: {
    num_chapters_read: at.integer('Published chapters you marked read.', { minimum: 0 }),
    num_unread_chapters: at.integer('Published chapters you have not marked read.', { minimum: 0 }),
    date_last_read: at.dateTime('Your last mark or unmark of one of its chapters.'),
  },
  relationships: {
    story: { type: STORY_TYPE, many: false },
    last_chapter_read: { type: CHAPTER_TYPE, many: false },
    next_chapter: { type: CHAPTER_TYPE, many: false },
  },
});

const PROGRESS_FIELDS = protoResourceMapper(ReadingProgressSchema, { ...READING_PROGRESS_SCHEMA, relationships: {} });

/** A to-one linkage to a chapter, null when there is none. */
function chapterLink(id: string | undefined): Relationship {
  return { data: id === undefined ? null : { type: CHAPTER_TYPE, id } };
}

/**
 * Maps a stories.v1 ReadingProgress to its JSON:API resource: id and `story` the story's,
 * `last_chapter_read` and `next_chapter` null when there are none. No `links.self`: it has no
 * GET-by-id endpoint.
 */
export function toReadingProgressResource(progress: ReadingProgress): ResourceObject {
  return resourceObject(READING_PROGRESS_TYPE, progress.storyId, PROGRESS_FIELDS.attributes(progress), {
    relationships: {
      story: { data: { type: STORY_TYPE, id: progress.storyId } },
      last_chapter_read: chapterLink(progress.lastChapterReadId),
      next_chapter: chapterLink(progress.nextChapterId),
    },
  });
}

/** The entries of a reading-list response. */
export function readingProgressOf({ progress }: { readonly progress: readonly ReadingProgress[] }): ResourceObject[] {
  return progress.map(toReadingProgressResource);
}
