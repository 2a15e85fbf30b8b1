import type { Logger } from '@inkwell/logging';
import type { ChapterRepository } from '../repositories/chapter.repository.js';
import type { EngagementRepository } from '../repositories/engagement.repository.js';
import type { StoryRepository } from '../repositories/story.repository.js';
import type { StoryIndexService } from './story-index.service.js';

/** Hidden stories leave lists before the hiding returns, not at the next index refresh. */
const SEARCHABLE_NOW = { searchableNow: true } as const;
/** Stories of a suspended author hidden in one transaction, then taken out of the index together. */
const HIDE_BATCH = 100;

/** What an operator can hide in the stories service. */
export type HideableKind = 'story' | 'chapter' | 'comment';

/**
 * Carries out the operators' decisions (docs/api/safety.md, "Reports and moderation"): hides a
 * story, chapter or comment, or everything a suspended author published. A hidden story also
 * leaves the search index at once, refreshed so that lists stop showing it before this returns
 * (its StoryUpdated event would remove it too, a moment later).
 * Every step is safe to repeat, so a redelivered event changes nothing.
 */
export class ContentHidingService {
  constructor(
    private readonly stories: Pick<StoryRepository, 'hide' | 'visibleIdsOfAuthor'>,
    private readonly chapters: Pick<ChapterRepository, 'hide'>,
    private readonly engagement: Pick<EngagementRepository, 'hideComments'>,
    private readonly index: Pick<StoryIndexService, 'syncStories'>,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Hides one item; unknown ids are left alone. */
  async hide(kind: HideableKind, id: string): Promise<void> {
    const now = this.clock();
    switch (kind) {
      case 'story':
        if ((await this.stories.hide([id], now)).length > 0) await this.index.syncStories([id], SEARCHABLE_NOW);
        break;
      case 'chapter':
        await this.chapters.hide(id, now);
        break;
      case 'comment':
        await this.engagement.hideComments({ id }, now);
        break;
    }
    this.logger.info({ kind, id }, 'content hidden by an operator');
  }

  /** Hides every story and comment of suspended user `authorId`. */
  async hideAuthor(authorId: string): Promise<void> {
    const now = this.clock();
    const ids = await this.stories.visibleIdsOfAuthor(authorId);
    // Batches bound each transaction however many stories the author has.
    for (let start = 0; start < ids.length; start += HIDE_BATCH) {
      const batch = ids.slice(start, start + HIDE_BATCH);
      await this.stories.hide(batch, now);
      await this.index.syncStories(batch, SEARCHABLE_NOW);
    }
    const comments = await this.engagement.hideComments({ byAuthor: authorId }, now);
    this.logger.info({ authorId, stories: ids.length, comments }, 'content of a suspended author hidden');
  }
}
