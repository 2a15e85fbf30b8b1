import type { EventEnvelope } from './gen/inkwell/events/v1/envelope_pb.js';

/**
 * Kafka topic names, `<domain>.<entity>.v1`: the single place they are spelled in TypeScript.
 * Every record value is an EventEnvelope; the key is the entity id named on each event message.
 */
export const Topics = {
  usersUser: 'users.user.v1',
  usersFollow: 'users.follow.v1',
  usersModeration: 'users.moderation.v1',
  storiesStory: 'stories.story.v1',
  storiesChapter: 'stories.chapter.v1',
  storiesComment: 'stories.comment.v1',
  bookshelvesBookshelf: 'bookshelves.bookshelf.v1',
  bookshelvesItem: 'bookshelves.item.v1',
  blogPost: 'blog.post.v1',
  messagingMessage: 'messaging.message.v1',
  webhooksEndpoint: 'webhooks.endpoint.v1',
} as const;

/** One of the topic names in {@link Topics}. */
export type TopicName = (typeof Topics)[keyof typeof Topics];

/** The `case` of an EventEnvelope payload that is set, e.g. `'storyRated'`. */
export type EventPayloadCase = NonNullable<EventEnvelope['payload']['case']>;

/**
 * The topic each event is published on, by its envelope payload case. Exhaustive: adding an event
 * to the envelope without a topic here fails type-checking.
 */
export const topicOfEvent: Readonly<Record<EventPayloadCase, TopicName>> = {
  userCreated: Topics.usersUser,
  userUpdated: Topics.usersUser,
  userFollowed: Topics.usersFollow,
  userUnfollowed: Topics.usersFollow,
  contentHidden: Topics.usersModeration,
  userSuspended: Topics.usersModeration,
  storyCreated: Topics.storiesStory,
  storyUpdated: Topics.storiesStory,
  storyDeleted: Topics.storiesStory,
  storyViewed: Topics.storiesStory,
  storyRated: Topics.storiesStory,
  storyStatsChanged: Topics.storiesStory,
  chapterCreated: Topics.storiesChapter,
  chapterUpdated: Topics.storiesChapter,
  chapterDeleted: Topics.storiesChapter,
  commentCreated: Topics.storiesComment,
  commentDeleted: Topics.storiesComment,
  bookshelfCreated: Topics.bookshelvesBookshelf,
  bookshelfUpdated: Topics.bookshelvesBookshelf,
  bookshelfDeleted: Topics.bookshelvesBookshelf,
  bookshelfItemAdded: Topics.bookshelvesItem,
  bookshelfItemRemoved: Topics.bookshelvesItem,
  bookshelfItemUpdated: Topics.bookshelvesItem,
  blogPostCreated: Topics.blogPost,
  blogPostUpdated: Topics.blogPost,
  blogPostDeleted: Topics.blogPost,
  blogPostViewed: Topics.blogPost,
  messageSent: Topics.messagingMessage,
  messageReadChanged: Topics.messagingMessage,
  webhookEndpointDisabled: Topics.webhooksEndpoint,
};
