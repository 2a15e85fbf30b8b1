/**
 * inkwell.stories.v1: Story, Chapter, Tag and Comment resources with their enums, StoriesService,
 * and the stories domain events (stories, chapters, views, ratings, comments).
 */
export * from './gen/inkwell/stories/v1/stories_pb.js';
export * from './gen/inkwell/stories/v1/stories_service_pb.js';
export * from './gen/inkwell/stories/v1/events_pb.js';
