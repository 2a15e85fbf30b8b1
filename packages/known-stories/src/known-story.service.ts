import type { StoryState } from './known-story.js';
import type { AppliedStory, KnownStoryStore } from './known-story.repository.js';

/** Keeps a service's copy of the stories in step with the stories service's events. */
export class KnownStoryService {
  constructor(private readonly stories: KnownStoryStore) {}

  /** Records a story's state; an older state than the stored one, or anything after a deletion, is ignored. */
  async record(state: StoryState): Promise<AppliedStory> {
    return this.stories.apply(state);
  }
}
