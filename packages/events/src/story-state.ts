import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { EventEnvelope } from '@inkwell/proto/events';

/**
 * A story as another service copies it from the stories service's events (stories.story.v1), or
 * from its GetStory answer: who wrote it, whether it is published, whether it is gone for good.
 */
export interface StoryState {
  storyId: string;
  authorId: string;
  published: boolean;
  /** True once the story is deleted: final, later states are ignored. */
  deleted: boolean;
  /**
   * The story's date_modified, which the stories service moves on every change (the envelope's
   * occurred_at when a snapshot lacks it): a state replaces a stored one only if it is not
   * older, so a stale or replayed event never rolls a copy back.
   */
  version: Date;
}

/**
 * The story state a StoryCreated, StoryUpdated or StoryDeleted envelope carries; undefined for
 * the topic's other events (views, ratings, stats), which change no copy, and for a snapshot
 * without a story id. The one decoder of story snapshots: every consumer of stories.story.v1
 * that keeps something per story reads events through it.
 */
export function storyStateOf(envelope: EventEnvelope): StoryState | undefined {
  const payload = envelope.payload;
  switch (payload.case) {
    case 'storyCreated':
    case 'storyUpdated':
    case 'storyDeleted': {
      const story = payload.value.story;
      if (story === undefined || story.storyId === '0' || story.storyId === '') return undefined;
      const modified = story.dateModified ?? envelope.occurredAt;
      return {
        storyId: story.storyId,
        authorId: story.authorId,
        published: story.published,
        deleted: payload.case === 'storyDeleted',
        version: modified === undefined ? new Date(0) : timestampDate(modified),
      };
    }
    default:
      return undefined;
  }
}
