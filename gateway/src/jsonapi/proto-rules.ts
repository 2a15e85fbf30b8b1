import { getExtension, hasExtension, ScalarType, type DescField } from '@bufbuild/protobuf';
import { fieldRules, ruleBound, search_text_max_len, TAG_ID_PATTERN, tag_id, trimmed_max_len, type RuleBound } from '@inkwell/proto/options';
import type { CursorPaginationSpec, NumberedPaginationSpec } from './page.parser.js';

/**
 * The limits the gateway shows or checks early, read from the buf.validate rules of the proto
 * request fields that own them (docs/api/foundation.md, "One contract"): the services enforce
 * the same rules, so no limit is stated twice. Every function throws when the proto states no
 * such rule: a mismatch fails when the gateway starts (and in its unit tests), never per request.
 */

/** Where a field is, for messages: `inkwell.stories.v1.StoryFilter.tag_ids`. */
function nameOf(field: DescField): string {
  return `${field.parent.typeName}.${field.name}`;
}

/**
 * The numeric bound `bound` that the proto's rules set on `field` (or with `of: 'items'` on each
 * item of a repeated field), e.g. `protoBound(ListStoriesRequestSchema.field.pageSize, 'lte')`.
 * Throws when the rules do not set it.
 */
export function protoBound(field: DescField, bound: RuleBound, of: 'field' | 'items' = 'field'): number {
  const value = ruleBound(field, bound, of);
  if (value === undefined) throw new Error(`${nameOf(field)} has no buf.validate ${typeof bound === 'string' ? bound : bound.name} rule${of === 'items' ? ' on its items' : ''}`);
  return value;
}

/**
 * Most characters of a string field: its `max_len`, or one of our predefined rules that bound the
 * trimmed length (`trimmed_max_len`, `search_text_max_len`; proto/inkwell/api/v1/rules.proto).
 */
export function maxChars(field: DescField): number {
  for (const bound of ['maxLen', trimmed_max_len, search_text_max_len] as const) {
    const value = ruleBound(field, bound);
    if (value !== undefined) return value;
  }
  throw new Error(`${nameOf(field)} has no buf.validate bound on its length`);
}

/** Most items of a repeated field (`repeated.max_items`). */
export function maxItems(field: DescField): number {
  return protoBound(field, 'maxItems');
}

/** The inclusive bounds of an integer field: its rules' gte/gt and lte/lt, within the field's type. */
export interface IntegerRule {
  readonly min: number;
  readonly max: number;
}

/** The values of a proto `int32` (and `sint32`, `sfixed32`). */
export const INT32_RANGE: IntegerRule = { min: -2_147_483_648, max: 2_147_483_647 };

/** The smallest and largest value of each integer type a JSON number can carry exactly. */
const TYPE_RANGE: Partial<Record<ScalarType, IntegerRule>> = {
  [ScalarType.INT32]: INT32_RANGE,
  [ScalarType.SINT32]: INT32_RANGE,
  [ScalarType.SFIXED32]: INT32_RANGE,
  [ScalarType.UINT32]: { min: 0, max: 4_294_967_295 },
  [ScalarType.FIXED32]: { min: 0, max: 4_294_967_295 },
};

/**
 * The values an integer field accepts: the range of its proto type (32-bit types only: 64-bit
 * ones travel as strings), narrowed by its rules (`gte`/`gt`, `lte`/`lt`).
 */
export function integerRule(field: DescField): IntegerRule {
  const range = field.scalar === undefined ? undefined : TYPE_RANGE[field.scalar];
  if (range === undefined) throw new Error(`${nameOf(field)} is not a 32-bit integer field`);
  const gte = ruleBound(field, 'gte') ?? (ruleBound(field, 'gt') ?? range.min - 1) + 1;
  const lte = ruleBound(field, 'lte') ?? (ruleBound(field, 'lt') ?? range.max + 1) - 1;
  return { min: Math.max(gte, range.min), max: Math.min(lte, range.max) };
}

/**
 * The pattern of a string field, or with `of: 'items'` of each item of a repeated one, as the
 * proto states it: its `string.pattern` (anchored, RE2 syntax that JavaScript shares), or our
 * predefined `tag_id` rule (TAG_ID_PATTERN of @inkwell/proto/options).
 */
export function protoPattern(field: DescField, of: 'field' | 'items' = 'field'): RegExp {
  const own = fieldRules(field);
  const rules = of === 'field' ? own : own?.type.case === 'repeated' ? own.type.value.items : undefined;
  const strings = rules?.type.case === 'string' ? rules.type.value : undefined;
  if (strings !== undefined && hasExtension(strings, tag_id) && getExtension(strings, tag_id)) return TAG_ID_PATTERN;
  if (strings === undefined || strings.pattern === '') throw new Error(`${nameOf(field)} has no buf.validate string.pattern${of === 'items' ? ' on its items' : ''}`);
  return new RegExp(strings.pattern, 'u');
}

/**
 * The only values a string field accepts, or with `of: 'items'` each item of a repeated one: its
 * `string.in` rule, in the proto's order (e.g. the event types of a webhook endpoint).
 */
export function protoStringIn(field: DescField, of: 'field' | 'items' = 'field'): readonly [string, ...string[]] {
  const own = fieldRules(field);
  const rules = of === 'field' ? own : own?.type.case === 'repeated' ? own.type.value.items : undefined;
  const values = rules?.type.case === 'string' ? rules.type.value.in : [];
  if (values.length === 0) throw new Error(`${nameOf(field)} has no buf.validate string.in${of === 'items' ? ' on its items' : ''}`);
  return values as [string, ...string[]];
}

/** A pattern's source without its `^…$` anchors, to build larger patterns from (a comma-separated list). */
export function unanchored(pattern: RegExp): string {
  return pattern.source.replace(/^\^/, '').replace(/\$$/, '');
}

/** The largest int64: ids are int64 fields of the proto, positive by their rule `int64.gt = 0`. */
export const INT64_MAX = 9223372036854775807n;

/**
 * The syntax of a numeric id (docs/api/foundation.md, "Transport and routing"): the canonical
 * decimal form of a positive int64, `^[1-9][0-9]{0,18}$` (at most as many digits as
 * {@link INT64_MAX}; {@link isId} also compares the value).
 */
export const ID_PATTERN = new RegExp(`^[1-9][0-9]{0,${String(INT64_MAX).length - 1}}$`);

/** Whether `text` is a numeric id: {@link ID_PATTERN} and at most {@link INT64_MAX}. */
export function isId(text: string): boolean {
  return ID_PATTERN.test(text) && BigInt(text) <= INT64_MAX;
}

/**
 * `page[size]` of a cursor list (docs/api/lists.md, "Cursor pagination"): 1 to the `lte` of the
 * request's `page_size` rule, {@link DEFAULT_PAGE_SIZE} when left out.
 */
export function cursorPagination(pageSize: DescField): CursorPaginationSpec {
  return { kind: 'cursor', defaultSize: DEFAULT_PAGE_SIZE, maxSize: pageSizeMax(pageSize) };
}

/**
 * `page[size]` of a page-numbered list (docs/api/lists.md, "Page-numbered pagination"): 1 to the
 * `lte` of the request's `page_size` rule, `defaultSize` when left out.
 */
export function numberedPagination(pageSize: DescField, defaultSize: number): NumberedPaginationSpec {
  return { kind: 'page', defaultSize, maxSize: pageSizeMax(pageSize) };
}

/**
 * The page size of a cursor list whose request leaves `page[size]` out (docs/api/lists.md,
 * "Cursor pagination"; the services' `page_size` 0). buf.validate has no default values, so
 * the proto states it only in its comments.
 */
export const DEFAULT_PAGE_SIZE = 20;

/** The `lte` of a `page_size` rule, which must also accept 0 (the default). */
function pageSizeMax(field: DescField): number {
  const max = protoBound(field, 'lte');
  if (integerRule(field).min !== 0) throw new Error(`${nameOf(field)} must accept 0 (the default page size)`);
  return max;
}
