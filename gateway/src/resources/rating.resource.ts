import type { MessageInitShape } from '@bufbuild/protobuf';
import { RatingValueSchema, type SetStoryRatingRequestSchema } from '@inkwell/proto/stories';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../jsonapi/index.js';
import type { BodyOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';

/** The JSON:API type of the body of PUT /stories/:id/rating (never answered: the PUT is 204). */
export const RATING_TYPE = 'rating';

const VALUE = protoEnumNames(RatingValueSchema);

/** The public vote values: like, dislike. */
export const RATING_VALUES = VALUE.names;

/** The rating type: one attribute, the caller's vote. It has no id and no endpoint of its own. */
export const RATING_SCHEMA = defineResourceSchema({ type: RATING_TYPE, description: 'Your vote on a story.', attributes: { value: at.enumeration(RATING_VALUES) } });

/** What PUT /stories/:id/rating accepts: `value`, required, `like` or `dislike`. */
export const RATING_WRITE = defineWriteSpec({
  resource: RATING_SCHEMA,
  attributes: { value: writeValues.enumeration(RATING_VALUES) },
  required: ['value'],
});

/** PUT /stories/:id/rating: the caller's vote on `storyId`. */
export function ratingRequest(storyId: string, { attributes }: BodyOf<typeof RATING_WRITE>): MessageInitShape<typeof SetStoryRatingRequestSchema> {
  return { storyId, value: VALUE.toProto(attributes.value) };
}
