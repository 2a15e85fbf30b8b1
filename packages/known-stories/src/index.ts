export { counts, supersedes, type StoryState } from './known-story.js';
export { KNOWN_STORIES_TABLE, KnownStoryRepository, type AppliedStory, type KnownStoryStore, type KnownStoryStoreFactory } from './known-story.repository.js';
export { KnownStoryService } from './known-story.service.js';
export { createKnownStoryConsumer, type KnownStoryConsumerOptions } from './known-story.consumer.js';
