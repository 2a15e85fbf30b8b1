import type { PreflightTable } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';
import type { ChapterService } from '../services/chapter.service.js';
import type { EngagementService } from '../services/engagement.service.js';
import type { StoryService } from '../services/story.service.js';

/** The services whose authorization the preflights reuse. */
export interface StoriesPreflightDeps {
  stories: StoryService;
  chapters: ChapterService;
  engagement: EngagementService;
}

/**
 * Who may write comes before what is written (docs/api/foundation.md, "Markdown"; docs/api/stories.md):
 * a write whose values break their rules is still refused first for a story or chapter the caller
 * may not change (`404` when it cannot see it, else `403 forbidden`), and a vote or comment for a
 * story it cannot see (`404`) or may not rate (its own, `403`).
 */
export function storiesPreflight({ stories, chapters, engagement }: StoriesPreflightDeps): PreflightTable<typeof StoriesService> {
  return {
    updateStory: (request, ctx) => stories.authorizeChange(request.id, ctx.caller),
    createChapter: (request, ctx) => stories.authorizeChange(request.storyId, ctx.caller),
    updateChapter: (request, ctx) => chapters.authorizeChange(request.id, ctx.caller),
    setStoryRating: (request, ctx) => engagement.authorizeRating(request.storyId, ctx.caller),
    createComment: (request, ctx) => engagement.authorizeComment(request.storyId, ctx.caller),
  };
}
