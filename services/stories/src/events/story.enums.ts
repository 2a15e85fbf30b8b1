import { ContentRating as ProtoContentRating, StoryStatus as ProtoStoryStatus } from '@inkwell/proto/stories';
import type { ContentRating, StoryStatus } from '../domain/story.js';

/** Domain status → proto enum (used by event payloads and transport mappers alike). */
export const STATUS_TO_PROTO: Readonly<Record<StoryStatus, ProtoStoryStatus>> = {
  complete: ProtoStoryStatus.COMPLETE,
  incomplete: ProtoStoryStatus.INCOMPLETE,
  'on-hiatus': ProtoStoryStatus.ON_HIATUS,
  cancelled: ProtoStoryStatus.CANCELLED,
};

/** Domain content rating → proto enum. */
export const CONTENT_RATING_TO_PROTO: Readonly<Record<ContentRating, ProtoContentRating>> = {
  everyone: ProtoContentRating.EVERYONE,
  teen: ProtoContentRating.TEEN,
  mature: ProtoContentRating.MATURE,
};

/** Proto status → domain; UNSPECIFIED (and unknown numbers) → undefined. */
export function statusFromProto(value: ProtoStoryStatus): StoryStatus | undefined {
  return (Object.keys(STATUS_TO_PROTO) as StoryStatus[]).find((status) => STATUS_TO_PROTO[status] === value);
}

/** Proto content rating → domain; UNSPECIFIED (and unknown numbers) → undefined. */
export function contentRatingFromProto(value: ProtoContentRating): ContentRating | undefined {
  return (Object.keys(CONTENT_RATING_TO_PROTO) as ContentRating[]).find((rating) => CONTENT_RATING_TO_PROTO[rating] === value);
}
