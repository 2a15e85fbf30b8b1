import { RatingValue } from '@inkwell/proto/stories';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../lists/index.js';

/** The JSON:API type of the body of PUT /stories/:id/rating (never answered: the PUT is 204). */
export const RATING_TYPE = 'rating';

/** The public vote values, in API order. */
export const RATING_VALUES = ['like', 'dislike'] as const;
/** A public vote value. */
export type RatingValueName = (typeof RATING_VALUES)[number];

const VALUE_TO_PROTO: Readonly<Record<RatingValueName, RatingValue>> = { like: RatingValue.LIKE, dislike: RatingValue.DISLIKE };

/** The rating type: one attribute, the caller's vote. It has no id and no endpoint of its own. */
export const RATING_SCHEMA = defineResourceSchema({ type: RATING_TYPE, description: 'Your vote on a story.', attributes: { value: at.enumeration(RATING_VALUES) } });

/** What PUT /stories/:id/rating accepts: `value`, required, `like` or `dislike`. */
export const RATING_WRITE = defineWriteSpec({
  resource: RATING_SCHEMA,
  attributes: { value: writeValues.enumeration(RATING_VALUES) },
  required: ['value'],
});

/** The proto enum of a public vote value. */
export function ratingValueToProto(value: RatingValueName): RatingValue {
  return VALUE_TO_PROTO[value];
}
