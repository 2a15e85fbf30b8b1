import { AppError, ErrorCode } from '@inkwell/errors';
import { renderMarkdown } from '@inkwell/markdown';
import type { Comment, RatingValue } from '../domain/engagement.js';
import { decodePosition, encodePosition, pageLimit } from '../domain/list.js';
import { isEntityId, type Story, type Viewer } from '../domain/story.js';
import type { EngagementRepository } from '../repositories/engagement.repository.js';
import type { UserBlocksRepository } from '../repositories/user-blocks.repository.js';
import { writerOf, type PageInput, type StoryService } from './story.service.js';

/** What the vote and comment rules read and write: EngagementRepository, or a memory store in unit tests. */
export type EngagementStore = Pick<EngagementRepository, 'setVote' | 'listComments' | 'createComment' | 'deleteComment' | 'findComment'>;

const COMMENT_ORDER = 'comment.asc';

/** Whether either of two users blocks the other, asked of the users service at the moment of the action (docs/api/safety.md, "Blocking"): UserBlocksRepository. */
export type BlockCheck = Pick<UserBlocksRepository, 'blockedEitherWay'>;

/**
 * The rules about votes and comments: published stories only, who may delete, and (with
 * `blocks`) no comment between two users one of whom blocks the other (docs/api/safety.md,
 * "Blocking"). Their scopes and values are the proto's (docs/api/foundation.md, "One contract").
 */
export class EngagementService {
  constructor(
    private readonly engagement: EngagementStore,
    private readonly stories: StoryService,
    private readonly blocks?: BlockCheck,
  ) {}

  /**
   * Sets the caller's vote on story `storyId` (`undefined` withdraws it). Only on published
   * stories: another user's draft is NOT_FOUND, one's own draft 422; one's own published story
   * cannot be rated (403).
   */
  async setRating(storyId: string, value: RatingValue | undefined, viewer: Viewer): Promise<RatingValue | undefined> {
    const userId = writerOf(viewer);
    if (!isEntityId(storyId)) throw AppError.notFound('story');
    return this.engagement.setVote(storyId, userId, value, (story) => requireRatable(story, viewer));
  }

  /**
   * Refuses a vote on story `storyId` the caller may not rate, as setRating does (NOT_FOUND for
   * none or another's draft, 422 for one's own draft, 403 for one's own story); changes nothing.
   */
  async authorizeRating(storyId: string, viewer: Viewer): Promise<void> {
    requireRatable(await this.storyToEngage(storyId), viewer);
  }

  /**
   * Refuses a comment on story `storyId` that cannot take one from the caller, as createComment
   * does (NOT_FOUND for none or another's draft, 422 for one's own draft, 403 when the story's
   * author blocks the caller or the caller blocks them); changes nothing.
   */
  async authorizeComment(storyId: string, viewer: Viewer): Promise<void> {
    const story = await this.storyToEngage(storyId);
    requirePublished(story, viewer, 'commented on');
    const userId = viewer.userId;
    if (this.blocks !== undefined && userId !== undefined && userId !== story.authorId && (await this.blocks.blockedEitherWay(story.authorId, userId, viewer))) {
      throw AppError.forbidden('You cannot comment on this story.');
    }
  }

  /** Withdraws the caller's vote on story `storyId`; without one nothing changes. */
  async deleteRating(storyId: string, viewer: Viewer): Promise<void> {
    await this.setRating(storyId, undefined, viewer);
  }

  /** A page of the comments of story `storyId` (visible as GetStory), oldest first, without those by `hiddenAuthorIds`. */
  async listComments(storyId: string, page: PageInput, viewer: Viewer, hiddenAuthorIds: readonly string[] = []): Promise<{ comments: Comment[]; nextAfter: string }> {
    const story = await this.stories.getStory(storyId, viewer);
    const limit = pageLimit(page.pageSize);
    let afterId: string | undefined;
    if (page.after !== '') {
      const position = decodePosition(page.after, COMMENT_ORDER, isEntityId);
      if (!position || !isEntityId(position.id)) throw AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
      afterId = position.id;
    }
    const { comments, more } = await this.engagement.listComments(story.id, limit, afterId, hiddenAuthorIds);
    const last = comments.at(-1);
    return { comments, nextAfter: more && last ? encodePosition({ sort: COMMENT_ORDER, key: null, id: last.id }) : '' };
  }

  /**
   * Posts a comment by the caller on published story `storyId`. The story is checked before the
   * text is rendered and again under its lock; nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async createComment(storyId: string, content: string, viewer: Viewer, signal?: AbortSignal): Promise<Comment> {
    const authorId = writerOf(viewer);
    await this.authorizeComment(storyId, viewer);
    const contentHtml = await renderMarkdown(content, { pointer: '/data/attributes/content', caller: viewer, signal });
    return this.engagement.createComment(storyId, { authorId, content, contentHtml }, (story) => requirePublished(story, viewer, 'commented on'), signal);
  }

  /** Comment `id` when the viewer may see its story (as GetStory) and it is not hidden; NOT_FOUND otherwise. */
  async getComment(id: string, viewer: Viewer): Promise<Comment> {
    const found = isEntityId(id) ? await this.engagement.findComment(id) : undefined;
    if (found === undefined) throw AppError.notFound('comment');
    await this.stories.getStory(found.comment.storyId, viewer);
    return found.comment;
  }

  /** Deletes comment `id`: its author or the story's author may; others get 403 (404 if they cannot see it). */
  async deleteComment(id: string, viewer: Viewer): Promise<void> {
    const userId = writerOf(viewer);
    if (!isEntityId(id)) throw AppError.notFound('comment');
    await this.engagement.deleteComment(id, (found) => {
      if (found.comment.authorId === userId || found.storyAuthorId === userId) return;
      if (!found.storyPublished) throw AppError.notFound('comment');
      throw AppError.forbidden('Only the comment’s author or the story’s author can delete it.');
    });
  }

  /** Story `storyId` as stored, for a vote's or comment's rule; NOT_FOUND when there is none. */
  private async storyToEngage(storyId: string): Promise<Story> {
    if (!isEntityId(storyId)) throw AppError.notFound('story');
    return this.stories.storyForWrite(storyId);
  }
}

/** A vote needs a published story of someone else (docs/api/stories.md, "Votes and comments"). */
function requireRatable(story: Story, viewer: Viewer): void {
  requirePublished(story, viewer, 'rated');
  if (story.authorId === viewer.userId) throw AppError.forbidden('Authors cannot rate their own stories.');
}

/** Votes and comments need a published story: another's draft is 404, one's own draft 422 (docs/api/stories.md, "Votes and comments"). */
function requirePublished(story: Story, viewer: Viewer, what: string): void {
  if (story.published) return;
  if (story.authorId !== viewer.userId) throw AppError.notFound('story');
  throw new AppError(ErrorCode.INVALID_ARGUMENT, `A draft cannot be ${what}: publish the story first.`, {
    details: [{ reason: 'validation_failed', detail: `A draft cannot be ${what}: publish the story first.` }],
  });
}
