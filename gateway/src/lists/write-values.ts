import { z } from 'zod';

/** Longest title or subject, in characters (contract §10). */
export const MAX_TITLE_CHARS = 200;
/** Longest short description, in characters (contract §10). */
export const MAX_SHORT_DESCRIPTION_CHARS = 300;
/** Largest value of any other text field, in UTF-8 bytes: 1 MiB (contract §10). */
export const MAX_TEXT_BYTES = 1024 * 1024;

const ID = /^[1-9]\d{0,18}$/;
const TAG = /^[cg]:[1-9]\d{0,18}$/;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

const characters = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

const string = (): z.ZodString => z.string({ error: 'must be a string' });

/**
 * zod schemas of writable attribute values with the limits of contract §10 and short messages
 * (the message becomes the `detail` of a 422 whose pointer names the attribute).
 */
export const writeValues = {
  /** A title or subject: non-empty after trimming, at most 200 characters. */
  title(): z.ZodType<string, unknown> {
    return string()
      .refine((text) => text.trim() !== '', 'must not be empty')
      .refine((text) => characters(text) <= MAX_TITLE_CHARS, `must be at most ${MAX_TITLE_CHARS} characters`);
  },

  /** Text of at most `maxChars` characters, or (by default) at most 1 MiB of UTF-8; may be empty. */
  text(maxChars?: number): z.ZodType<string, unknown> {
    if (maxChars !== undefined) return string().refine((text) => characters(text) <= maxChars, `must be at most ${maxChars} characters`);
    return string().refine((text) => Buffer.byteLength(text, 'utf8') <= MAX_TEXT_BYTES, 'must be at most 1 MiB');
  },

  /** Text that is required to say something: non-empty after trimming, at most 1 MiB. */
  nonEmptyText(): z.ZodType<string, unknown> {
    return string()
      .refine((text) => text.trim() !== '', 'must not be empty')
      .refine((text) => Buffer.byteLength(text, 'utf8') <= MAX_TEXT_BYTES, 'must be at most 1 MiB');
  },

  /** `true` or `false` (JSON booleans only, not strings or numbers). */
  boolean(): z.ZodType<boolean, unknown> {
    return z.boolean({ error: 'must be true or false' });
  },

  /** One of `values`. */
  enumeration<const V extends string>(values: readonly [V, ...V[]]): z.ZodType<V, unknown> {
    return z.enum(values as unknown as [V, ...V[]], { error: `must be one of ${values.join(', ')}` }) as unknown as z.ZodType<V, unknown>;
  },

  /**
   * Any JSON string, for attributes whose limits and format the owning service checks (bookshelf
   * `name`, `description`, `color`): the gateway checks only the type, so no limit exists twice.
   */
  string(): z.ZodType<string, unknown> {
    return string();
  },

  /** A JSON integer that fits the 32-bit proto field it is sent in (e.g. bookshelf `order`). */
  int32(): z.ZodType<number, unknown> {
    return z.number({ error: 'must be an integer' }).int('must be an integer').min(INT32_MIN, 'must be a 32-bit integer').max(INT32_MAX, 'must be a 32-bit integer');
  },
} as const;

/** zod schemas of the `id` of a relationship's resource identifiers. */
export const identifierIds = {
  /** A numeric id (positive int64, canonical decimal string). */
  numeric(): z.ZodType<string, unknown> {
    return string().refine((id) => ID.test(id) && BigInt(id) <= 9223372036854775807n, 'must be a numeric id string');
  },
  /** A story tag id: `c:<n>` or `g:<n>`. */
  tag(): z.ZodType<string, unknown> {
    return string().refine((id) => TAG.test(id), 'must be a tag id c:<n> (character) or g:<n> (genre)');
  },
} as const;
