import type { ServiceImpl } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';
import { ratingValueFromProto, ratingValueToProto } from '../events/story.events.js';
import type { ChapterService } from '../services/chapter.service.js';
import type { EngagementService } from '../services/engagement.service.js';
import type { ReadingService } from '../services/reading.service.js';
import type { StoryService } from '../services/story.service.js';
import type { TagService } from '../services/tag.service.js';
import {
  contentRatingOfRequest,
  statusOfRequest,
  storyFilterFromProto,
  storySortFromProto,
  tagKindFromProto,
  tagSortFromProto,
  toProtoChapter,
  toProtoComment,
  toProtoReadingProgress,
  toProtoStory,
  toProtoTag,
} from './story.mappers.js';

/** What the StoriesService handlers call. */
export interface StoriesHandlerDeps {
  stories: StoryService;
  chapters: ChapterService;
  tags: TagService;
  engagement: EngagementService;
  reading: ReadingService;
}

/** gRPC handlers of StoriesService: decode → one service call → encode. */
export function storiesHandlers({ stories, chapters, tags, engagement, reading }: StoriesHandlerDeps): ServiceImpl<typeof StoriesService> {
  return {
    async getStory(request, ctx) {
      return { story: toProtoStory(await stories.getStory(request.id, ctx.caller)) };
    },
    async batchGetStories(request, ctx) {
      const page = await stories.batchGetStories(request.ids, ctx.caller);
      return { stories: page.items.map(toProtoStory), deferredIds: page.deferred };
    },
    async listStories(request, ctx) {
      const sort = storySortFromProto(request.sort);
      const page = await stories.listStories(
        {
          query: request.query,
          filter: storyFilterFromProto(request.filter),
          ...(sort ? { sort } : {}),
          pageSize: request.pageSize,
          after: request.after,
          countTags: request.countTags,
        },
        ctx.caller,
      );
      return {
        stories: page.stories.map(toProtoStory),
        nextAfter: page.nextAfter,
        ...(page.total ? { total: page.total.value, totalIsLowerBound: page.total.lowerBound } : {}),
        tagCounts: page.tagCounts ?? [],
      };
    },
    async listUserStories(request, ctx) {
      const sort = storySortFromProto(request.sort);
      const page = await stories.listUserStories(
        {
          userId: request.userId,
          ...(request.published === undefined ? {} : { published: request.published }),
          ...(sort ? { sort } : {}),
          pageSize: request.pageSize,
          after: request.after,
        },
        ctx.caller,
      );
      return { stories: page.stories.map(toProtoStory), nextAfter: page.nextAfter };
    },
    async createStory(request, ctx) {
      const status = statusOfRequest(request.status);
      const contentRating = contentRatingOfRequest(request.contentRating);
      const story = await stories.createStory(
        {
          title: request.title,
          shortDescription: request.shortDescription,
          description: request.description,
          ...(status ? { status } : {}),
          ...(contentRating ? { contentRating } : {}),
          published: request.published,
          tagIds: request.tagIds,
        },
        ctx.caller,
        ctx.signal,
      );
      return { story: toProtoStory(story) };
    },
    async updateStory(request, ctx) {
      const status = statusOfRequest(request.status);
      const contentRating = contentRatingOfRequest(request.contentRating);
      const story = await stories.updateStory(
        request.id,
        {
          ...(request.title === undefined ? {} : { title: request.title }),
          ...(request.shortDescription === undefined ? {} : { shortDescription: request.shortDescription }),
          ...(request.description === undefined ? {} : { description: request.description }),
          ...(status ? { status } : {}),
          ...(contentRating ? { contentRating } : {}),
          ...(request.published === undefined ? {} : { published: request.published }),
          ...(request.tags === undefined ? {} : { tagIds: request.tags.ids }),
        },
        ctx.caller,
        ctx.signal,
      );
      return { story: toProtoStory(story) };
    },
    async deleteStory(request, ctx) {
      await stories.deleteStory(request.id, ctx.caller);
      return {};
    },
    async listChapters(request, ctx) {
      const page = await chapters.listChapters(request.storyId, { pageSize: request.pageSize, after: request.after }, ctx.caller, request.includeContent);
      return { chapters: page.chapters.map(toProtoChapter), nextAfter: page.nextAfter };
    },
    async batchGetChapters(request, ctx) {
      const page = await chapters.batchGetChapters(request.ids, ctx.caller);
      return { chapters: page.items.map(toProtoChapter), deferredIds: page.deferred };
    },
    async getChapter(request, ctx) {
      return { chapter: toProtoChapter(await chapters.getChapter(request.id, request.includeContent, ctx.caller)) };
    },
    async listLatestChapters(request) {
      const source = request.source.case === 'storyId' ? { storyId: request.source.value } : { authorId: request.source.value ?? '' };
      return { chapters: (await chapters.listLatestChapters(source, request.limit)).map(toProtoChapter) };
    },
    async createChapter(request, ctx) {
      const chapter = await chapters.createChapter(
        request.storyId,
        { title: request.title, content: request.content, authorsNote: request.authorsNote, published: request.published },
        ctx.caller,
        ctx.signal,
      );
      return { chapter: toProtoChapter(chapter) };
    },
    async updateChapter(request, ctx) {
      const chapter = await chapters.updateChapter(
        request.id,
        {
          ...(request.title === undefined ? {} : { title: request.title }),
          ...(request.content === undefined ? {} : { content: request.content }),
          ...(request.authorsNote === undefined ? {} : { authorsNote: request.authorsNote }),
          ...(request.published === undefined ? {} : { published: request.published }),
        },
        ctx.caller,
        ctx.signal,
      );
      return { chapter: toProtoChapter(chapter) };
    },
    async deleteChapter(request, ctx) {
      await chapters.deleteChapter(request.id, ctx.caller);
      return {};
    },
    async markChapterRead(request, ctx) {
      await reading.markRead(request.chapterId, ctx.caller);
      return {};
    },
    async markChapterUnread(request, ctx) {
      await reading.markUnread(request.chapterId, ctx.caller);
      return {};
    },
    async listReadingProgress(request, ctx) {
      const page = await reading.listProgress(request.userId, { pageSize: request.pageSize, after: request.after }, ctx.caller);
      return { progress: page.progress.map(toProtoReadingProgress), nextAfter: page.nextAfter };
    },
    async listTags(request) {
      const kind = tagKindFromProto(request.kind);
      const sort = tagSortFromProto(request.sort);
      const page = await tags.listTags({ ...(kind ? { kind } : {}), ...(sort ? { sort } : {}), pageSize: request.pageSize, after: request.after });
      return { tags: page.tags.map(toProtoTag), nextAfter: page.nextAfter };
    },
    async batchGetTags(request) {
      return { tags: (await tags.batchGetTags(request.ids)).map(toProtoTag) };
    },
    async setStoryRating(request, ctx) {
      return { value: ratingValueToProto(await engagement.setRating(request.storyId, ratingValueFromProto(request.value), ctx.caller)) };
    },
    async deleteStoryRating(request, ctx) {
      await engagement.deleteRating(request.storyId, ctx.caller);
      return {};
    },
    async listComments(request, ctx) {
      const page = await engagement.listComments(request.storyId, { pageSize: request.pageSize, after: request.after }, ctx.caller, request.hiddenAuthorIds);
      return { comments: page.comments.map(toProtoComment), nextAfter: page.nextAfter };
    },
    async createComment(request, ctx) {
      return { comment: toProtoComment(await engagement.createComment(request.storyId, request.content, ctx.caller, ctx.signal)) };
    },
    async getComment(request, ctx) {
      return { comment: toProtoComment(await engagement.getComment(request.id, ctx.caller)) };
    },
    async deleteComment(request, ctx) {
      await engagement.deleteComment(request.id, ctx.caller);
      return {};
    },
  };
}
