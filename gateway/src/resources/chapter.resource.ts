import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@inkwell/errors';
import { ChapterSchema, type Chapter, type CreateChapterRequestSchema, type UpdateChapterRequestSchema } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, wantsField, writeValues, type SparseFieldsets } from '../jsonapi/index.js';
import type { BodyOf } from '../routing/route-kinds.js';
import { optInAttributes, protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of chapters. */
export const CHAPTER_TYPE = 'chapter';

/**
 * The chapter type (docs/api/foundation.md, "Resource types"; docs/api/lists.md, "Sparse fieldsets"). `content` and `content_html` are heavy: returned only when
 * named in `fields[chapter]` (and only by the endpoints that read a single chapter).
 */
export const CHAPTER_SCHEMA = defineResourceSchema({
  type: CHAPTER_TYPE,
  description: 'A chapter of a story.',
  attributes: {
    title: at.string(),
    content: at.string('Markdown; opt-in: only when named in fields[chapter].'),
    content_html: at.html('content'),
    authors_note: at.string('Markdown.'),
    authors_note_html: at.html('authors_note'),
    chapter_number: at.integer(undefined, { minimum: 1 }),
    published: at.boolean(),
    num_words: at.integer(undefined, { minimum: 0 }),
    num_views: at.integer(undefined, { minimum: 0 }),
    date_published: at.dateTime(undefined, { nullable: true }),
    date_modified: at.dateTime(undefined, { nullable: true }),
    read: at.boolean('Whether you marked it read (docs/api/stories.md, "Reading progress"): only on reads by a signed-in user with read_bookshelves; absent otherwise.'),
  },
  heavyAttributes: optInAttributes(ChapterSchema),
  relationships: { story: { type: 'story', many: false } },
});

/** The heavy chapter fields, for `unavailableFields` of endpoints that list chapters without their text. */
export const CHAPTER_CONTENT_FIELDS = { fields: ['content', 'content_html'], why: "a chapter's content is returned by GET /chapters/:id and GET /stories/:id/chapters (and by chapter writes) only." } as const;

/** What POST /stories/:id/chapters and PATCH /chapters/:id accept; `title` is required on create. */
export const CHAPTER_WRITE = defineWriteSpec({
  resource: CHAPTER_SCHEMA,
  attributes: {
    title: writeValues.string(),
    content: writeValues.string(),
    authors_note: writeValues.string(),
    published: writeValues.boolean(),
  },
  required: ['title'],
});

const CHAPTER_FIELDS = protoResourceMapper(ChapterSchema, CHAPTER_SCHEMA);

/**
 * Maps a stories.v1 Chapter to its JSON:API resource: `content`/`content_html` only when the
 * service sent them (the caller asked for the content), dates in ISO 8601 UTC or null, linkage
 * to its story, `links.self` = PUBLIC_BASE_URL/api/v1/chapters/<id>.
 */
export function toChapterResource(chapter: Chapter, links: ApiLinks): ResourceObject {
  return resourceObject(CHAPTER_TYPE, chapter.id, CHAPTER_FIELDS.attributes(chapter), { relationships: CHAPTER_FIELDS.relationships(chapter), self: links.to(`/chapters/${chapter.id}`) });
}

/** The chapter of a single-chapter response (get, create, update); a response without one is 404. */
export function chapterOf({ chapter }: { readonly chapter?: Chapter }, links: ApiLinks): ResourceObject {
  if (chapter === undefined) throw AppError.notFound('chapter');
  return toChapterResource(chapter, links);
}

/** The chapters of a list response. */
export function chaptersOf({ chapters }: { readonly chapters: readonly Chapter[] }, links: ApiLinks): ResourceObject[] {
  return chapters.map((chapter) => toChapterResource(chapter, links));
}

/** Whether `fields[chapter]` asks for the (heavy, opt-in) content: only then is it fetched, and a view counted. */
export function wantsChapterContent(fields: SparseFieldsets): boolean {
  return wantsField(fields, CHAPTER_SCHEMA, 'content') || wantsField(fields, CHAPTER_SCHEMA, 'content_html');
}

/** POST /stories/:id/chapters: left-out members are the service's defaults (an unpublished chapter). */
export function chapterCreateRequest(storyId: string, { attributes }: BodyOf<typeof CHAPTER_WRITE>): MessageInitShape<typeof CreateChapterRequestSchema> {
  return {
    storyId,
    title: attributes.title ?? '',
    content: attributes.content ?? '',
    authorsNote: attributes.authors_note ?? '',
    published: attributes.published ?? false,
  };
}

/** PATCH /chapters/:id: left-out members stay unchanged. */
export function chapterUpdateRequest(id: string, { attributes }: BodyOf<typeof CHAPTER_WRITE>): MessageInitShape<typeof UpdateChapterRequestSchema> {
  return { id, title: attributes.title, content: attributes.content, authorsNote: attributes.authors_note, published: attributes.published };
}
