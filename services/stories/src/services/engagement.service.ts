import { AppError, ErrorCode } from '@inkwell/errors';
import { renderMarkdown } from '@inkwell/markdown';
import type { Comment, RatingValue } from '../domain/engagement.js';
import { decodePosition, encodePosition, pageSizeOf } from '../domain/list.js';
import { isEntityId, type Story, type Viewer } from '../domain/story.js';
import type { EngagementRepository } from '../repositories/engagement.repository.js';
import type { PageInput, StoryService } from './story.service.js';
import { checkText, Problems } from './validation.js';

/** The scope of votes (docs/api/stories.md, "Votes and comments"). */
export const WRITE_RATINGS = 'write_ratings';
/** The scope of comment writes (docs/api/stories.md, "Votes and comments"). */
export const WRITE_COMMENTS = 'write_comments';

const COMMENT_ORDER = 'comment.asc';

/** The rules about votes and comments: scopes, published stories only, who may delete. */
export class EngagementService {
  constructor(
    private readonly engagement: EngagementRepository,
    private readonly stories: StoryService,
  ) {}

  /**
   * Sets the caller's vote on story `storyId` (`undefined` withdraws it). Only on published
   * stories: another user's draft is NOT_FOUND, one's own draft 422; one's own published story
   * cannot be rated (403).
   */
  async setRating(storyId: string, value: RatingValue | undefined, viewer: Viewer, required = true): Promise<RatingValue | undefined> {
    const userId = requireUser(viewer, WRITE_RATINGS);
    if (!isEntityId(storyId)) throw AppError.notFound('story');
    if (required && value === undefined) throw AppError.validation('/data/attributes/value', 'A rating is "like" or "dislike".');
    return this.engagement.setVote(storyId, userId, value, (story) => {
      requirePublished(story, viewer, 'rated');
      if (story.authorId === userId) throw AppError.forbidden('Authors cannot rate their own stories.');
    });
  }

  /** Withdraws the caller's vote on story `storyId`; without one nothing changes. */
  async deleteRating(storyId: string, viewer: Viewer): Promise<void> {
    await this.setRating(storyId, undefined, viewer, false);
  }

  /** A page of the comments of story `storyId` (visible as GetStory), oldest first. */
  async listComments(storyId: string, page: PageInput, viewer: Viewer): Promise<{ comments: Comment[]; nextAfter: string }> {
    const story = await this.stories.getStory(storyId, viewer);
    const limit = pageSizeOf(page.pageSize);
    if (limit === undefined) throw AppError.badParameter('page[size]', 'page[size] is between 1 and 100.');
    let afterId: string | undefined;
    if (page.after !== '') {
      const position = decodePosition(page.after, COMMENT_ORDER);
      if (!position || !isEntityId(position.id)) throw AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
      afterId = position.id;
    }
    const { comments, more } = await this.engagement.listComments(story.id, limit, afterId);
    const last = comments.at(-1);
    return { comments, nextAfter: more && last ? encodePosition({ sort: COMMENT_ORDER, key: null, id: last.id }) : '' };
  }

  /**
   * Posts a comment by the caller on published story `storyId`. The story is checked before the
   * text is rendered and again under its lock; nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async createComment(storyId: string, content: string, viewer: Viewer, signal?: AbortSignal): Promise<Comment> {
    const authorId = requireUser(viewer, WRITE_COMMENTS);
    if (!isEntityId(storyId)) throw AppError.notFound('story');
    const problems = new Problems();
    if (content.trim() === '') problems.add('/data/attributes/content', 'A comment needs content.');
    checkText(problems, content, 'content');
    problems.throwIfAny();
    requirePublished(await this.stories.storyForWrite(storyId), viewer, 'commented on');
    const contentHtml = await renderMarkdown(content, { pointer: '/data/attributes/content', caller: viewer, signal });
    return this.engagement.createComment(storyId, { authorId, content, contentHtml }, (story) => requirePublished(story, viewer, 'commented on'), signal);
  }

  /** Deletes comment `id`: its author or the story's author may; others get 403 (404 if they cannot see it). */
  async deleteComment(id: string, viewer: Viewer): Promise<void> {
    const userId = requireUser(viewer, WRITE_COMMENTS);
    if (!isEntityId(id)) throw AppError.notFound('comment');
    await this.engagement.deleteComment(id, (found) => {
      if (found.comment.authorId === userId || found.storyAuthorId === userId) return;
      if (!found.storyPublished) throw AppError.notFound('comment');
      throw AppError.forbidden('Only the comment’s author or the story’s author can delete it.');
    });
  }
}

function requireUser(viewer: Viewer, scope: string): string {
  if (!viewer.scopes.includes(scope)) throw AppError.insufficientScope(scope);
  if (viewer.userId === undefined) throw AppError.forbidden('Only a signed-in user can do this.');
  return viewer.userId;
}

/** Votes and comments need a published story: another's draft is 404, one's own draft 422 (docs/api/stories.md, "Votes and comments"). */
function requirePublished(story: Story, viewer: Viewer, what: string): void {
  if (story.published) return;
  if (story.authorId !== viewer.userId) throw AppError.notFound('story');
  throw new AppError(ErrorCode.INVALID_ARGUMENT, `A draft cannot be ${what}: publish the story first.`, {
    details: [{ reason: 'validation_failed', detail: `A draft cannot be ${what}: publish the story first.` }],
  });
}
