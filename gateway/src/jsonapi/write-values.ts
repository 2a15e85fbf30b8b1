import type { DescField } from '@bufbuild/protobuf';
import { z } from 'zod';
import { parseDateBound, type DateBoundSide, type Instant } from './date-values.js';
import { INT32_RANGE, isId, protoPattern } from './proto-rules.js';

const string = (): z.ZodString => z.string({ error: 'must be a string' });

/**
 * zod schemas of writable attribute values: the gateway checks only their JSON type (and that a
 * number fits its proto field), with short messages (the `detail` of a 422 whose pointer names
 * the attribute). Values and limits (required, length, size) are the owning service's to check
 * (docs/api/lists.md, "Write bodies").
 */
export const writeValues = {
  /** `true` or `false` (JSON booleans only, not strings or numbers). */
  boolean(): z.ZodType<boolean, unknown> {
    return z.boolean({ error: 'must be true or false' });
  },

  /** One of `values`. */
  enumeration<const V extends string>(values: readonly [V, ...V[]]): z.ZodType<V, unknown> {
    return z.enum(values as unknown as [V, ...V[]], { error: `must be one of ${values.join(', ')}` }) as unknown as z.ZodType<V, unknown>;
  },

  /** Any JSON string: the owning service checks its limits and format, so no limit exists twice. */
  string(): z.ZodType<string, unknown> {
    return string();
  },

  /** A numeric id (a positive int64 in canonical decimal form) as a JSON string, like every id of the API. */
  id(): z.ZodType<string, unknown> {
    return string().refine(isId, 'must be a numeric id string');
  },

  /**
   * An ISO 8601 date or date-time string as the instant a proto Timestamp takes (docs/api/lists.md,
   * "Filters", whose syntax it shares): a date alone is its whole UTC day, so as a `max` it is the
   * day's last instant.
   */
  dateBound(side: DateBoundSide): z.ZodType<Instant, unknown> {
    return string().transform((text, ctx) => {
      const instant = parseDateBound(text, side);
      if (instant !== undefined) return instant;
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date or date-time' });
      return z.NEVER;
    });
  },

  /** A JSON integer that fits the 32-bit proto field it is sent in (e.g. bookshelf `order`). */
  int32(): z.ZodType<number, unknown> {
    return z.number({ error: 'must be an integer' }).int('must be an integer').min(INT32_RANGE.min, 'must be a 32-bit integer').max(INT32_RANGE.max, 'must be a 32-bit integer');
  },
} as const;

/** zod schemas of the `id` of a relationship's resource identifiers. */
export const identifierIds = {
  /** A numeric id (positive int64, canonical decimal string). */
  numeric(): z.ZodType<string, unknown> {
    return string().refine(isId, 'must be a numeric id string');
  },
  /** A story tag id, `c:<n>` or `g:<n>`, as the proto field `field` takes them (the items of a repeated field by default). */
  tag(field: DescField, of: 'field' | 'items' = 'items'): z.ZodType<string, unknown> {
    const tag = protoPattern(field, of);
    return string().refine((id) => tag.test(id), 'must be a tag id c:<n> (character) or g:<n> (genre)');
  },
} as const;
