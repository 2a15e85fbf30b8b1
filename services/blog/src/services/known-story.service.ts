import type { StoryChange } from '../domain/known-story.js';
import type { KnownStoryRepository } from '../repositories/known-story.repository.js';

/** Keeps the blog's copy of story publication in step with the stories service's events. */
export class KnownStoryService {
  constructor(private readonly stories: KnownStoryRepository) {}

  /** Records a story's state as of `change.occurredAt`; older or post-deletion changes are ignored. */
  async record(change: StoryChange): Promise<void> {
    await this.stories.apply(change);
  }
}
