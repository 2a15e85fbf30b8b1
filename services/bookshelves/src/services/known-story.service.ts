import type { StoryState } from '../domain/known-story.js';
import type { AppliedStory, KnownStoryRepository } from '../repositories/known-story.repository.js';

/** Keeps the bookshelves service's copy of the stories, and every count derived from it, in step with the stories service's events. */
export class KnownStoryService {
  constructor(private readonly stories: KnownStoryRepository) {}

  /**
   * Records a story's state; an older state than the stored one, or anything after a deletion,
   * is ignored. Publication changes move the counts of every shelf holding the story; a deletion
   * takes the story off every shelf.
   */
  async record(state: StoryState): Promise<AppliedStory> {
    return this.stories.apply(state);
  }
}
