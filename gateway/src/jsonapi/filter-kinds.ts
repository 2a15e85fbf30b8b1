import type { DescField } from '@bufbuild/protobuf';
import { z } from 'zod';
import { compareInstants, formatInstant, parseDateBound, type Instant } from './date-values.js';
import { ID_PATTERN, isId, maxItems, protoPattern, unanchored } from './proto-rules.js';

/**
 * How one `filter[<name>]` value is parsed: a zod schema from the raw query string to the typed
 * value, and how the value is written into a cursor binding (two values that filter the same
 * set must normalise alike). Build kinds with {@link filters}; the parser reports the first
 * zod issue as a 400 `invalid_parameter` naming the parameter.
 */
export interface FilterKind<T> {
  readonly schema: z.ZodType<T, string>;
  /** How the API document (gateway/src/openapi) shows the parameter: its syntax and an example value. */
  readonly doc: FilterDoc;
  // Method syntax on purpose: bivariant, so a kind of `string[]` serves where `readonly string[]` is expected.
  normalise(value: T): string;
}

/** The syntax of a filter value for the API document (docs/api/lists.md, "Filters"). */
export interface FilterDoc {
  /** The syntax in words, e.g. "min,max of integers, either side optional". */
  readonly syntax: string;
  /** An example value. */
  readonly example: string;
  /** A regular expression every valid value matches (the parser checks more: bounds, order). */
  readonly pattern?: string;
  /** The only values accepted, for enumerations and booleans. */
  readonly enum?: readonly string[];
}

/** The tags of a `filter[tags]` value: those required (all of them) and those excluded (none of them). */
export interface TagSelection {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** An inclusive integer range; a missing side is unbounded. */
export interface IntegerRange {
  readonly min?: number;
  readonly max?: number;
}

/** An inclusive range of instants; a missing side is unbounded. See parseDateBound for date-only values. */
export interface DateRange {
  readonly min?: Instant;
  readonly max?: Instant;
}

const INTEGER = /^-?(0|[1-9]\d{0,15})$/;

function kind<T>(schema: z.ZodType<T, string>, normalise: (value: T) => string, doc: FilterDoc): FilterKind<T> {
  return { schema, normalise, doc };
}

const ID_SOURCE = unanchored(ID_PATTERN);
const DATE_PATTERN = '[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+(Z|[+-][0-9:]+)?)?';

function fail(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/** Numeric order of canonical ids (shorter is smaller, then lexical). */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Splits `a,b,c` of at most `max` items; empty items and too many items are refused, duplicates are the caller's to judge. */
function splitList(text: string, ctx: z.RefinementCtx, what: string, max: number): string[] {
  const items = text.split(',');
  if (items.some((item) => item === '')) fail(ctx, `expected a comma-separated list of ${what} without empty items`);
  if (items.length > max) fail(ctx, `at most ${max} values are allowed`);
  return items;
}

function parseInteger(text: string, ctx: z.RefinementCtx, bounds: IntegerBounds): number {
  if (!INTEGER.test(text)) fail(ctx, `"${text}" is not an integer`);
  const value = Number(text);
  if (bounds.min !== undefined && value < bounds.min) fail(ctx, `must be at least ${bounds.min}`);
  if (bounds.max !== undefined && value > bounds.max) fail(ctx, `must be at most ${bounds.max}`);
  return value;
}

/** Splits a `min,max` range; a value without a comma is both bounds (`5` = `5,5`). */
function splitRange(text: string, ctx: z.RefinementCtx): [string, string] {
  const parts = text.split(',');
  if (parts.length > 2) fail(ctx, 'expected a range "min,max" (either side may be left empty)');
  const min = parts[0] ?? '';
  const max = parts.length === 1 ? min : (parts[1] ?? '');
  if (min === '' && max === '') fail(ctx, 'a range needs at least one bound');
  return [min, max];
}

function boundsText(bounds: IntegerBounds): string {
  if (bounds.min !== undefined && bounds.max !== undefined) return ` from ${bounds.min} to ${bounds.max}`;
  if (bounds.min !== undefined) return ` of at least ${bounds.min}`;
  return bounds.max === undefined ? '' : ` of at most ${bounds.max}`;
}

/** Optional limits of an integer filter. */
export interface IntegerBounds {
  readonly min?: number;
  readonly max?: number;
}

/**
 * The filter kinds of docs/api/lists.md, "Filters". Every kind rejects an empty value. Lists (`ids`, `tags`)
 * hold at most the `max_items` of the proto field they are sent in and come back deduplicated in
 * a canonical order, since order does not change which items match.
 */
export const filters = {
  /** One numeric id (a positive int64 in canonical form), as a string like every id. */
  id(): FilterKind<string> {
    return kind(
      z.string().transform((text, ctx) => (isId(text) ? text : fail(ctx, `"${text}" is not a numeric id`))),
      (value) => value,
      { syntax: 'a numeric id', example: '7', pattern: ID_PATTERN.source },
    );
  },

  /** `1,2,3`: numeric ids, at most the `max_items` of the repeated proto field `field`, deduplicated and sorted numerically. */
  ids(field: DescField): FilterKind<readonly string[]> {
    const max = maxItems(field);
    return kind<readonly string[]>(
      z.string().transform((text, ctx) => {
        const items = splitList(text, ctx, 'numeric ids', max);
        const bad = items.find((item) => !isId(item));
        if (bad !== undefined) fail(ctx, `"${bad}" is not a numeric id`);
        return [...new Set(items)].sort(compareIds);
      }),
      (value) => value.join(','),
      { syntax: `comma-separated numeric ids, at most ${max}`, example: '1,2,3', pattern: `^${ID_SOURCE}(,${ID_SOURCE})*$` },
    );
  },

  /** A single integer within optional bounds (a safe JavaScript integer). */
  integer(bounds: IntegerBounds = {}): FilterKind<number> {
    return kind(
      z.string().transform((text, ctx) => parseInteger(text, ctx, bounds)),
      String,
      { syntax: `an integer${boundsText(bounds)}`, example: String(bounds.min ?? 1), pattern: '^-?[0-9]+$' },
    );
  },

  /**
   * `min,max` with either side optional (`100,`, `,5000`), inclusive; a single value is both
   * bounds. min > max is rejected. `bounds` limits each side (e.g. `{ min: 0 }` for counts).
   */
  integerRange(bounds: IntegerBounds = {}): FilterKind<IntegerRange> {
    return kind(
      z.string().transform((text, ctx) => {
        const [minText, maxText] = splitRange(text, ctx);
        const min = minText === '' ? undefined : parseInteger(minText, ctx, bounds);
        const max = maxText === '' ? undefined : parseInteger(maxText, ctx, bounds);
        if (min !== undefined && max !== undefined && min > max) fail(ctx, `the minimum ${min} is greater than the maximum ${max}`);
        return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
      }),
      (value) => `${value.min ?? ''},${value.max ?? ''}`,
      { syntax: `an inclusive range \`min,max\` of integers${boundsText(bounds)}; either side may be left out (\`100,\`, \`,5000\`), and \`n\` alone means \`n,n\``, example: '1000,50000', pattern: '^(-?[0-9]+)?(,(-?[0-9]+)?)?$' },
    );
  },

  /**
   * `min,max` of ISO 8601 dates or date-times with either side optional, inclusive. A date
   * without a time is its whole UTC day: its start as a minimum, its end as a maximum, so
   * `2026-01-01,2026-01-31` is all of January and a single `2026-01-01` is that day. A single
   * date-time is that instant. min > max is rejected.
   */
  dateRange(): FilterKind<DateRange> {
    return kind(
      z.string().transform((text, ctx) => {
        const [minText, maxText] = splitRange(text, ctx);
        const min = minText === '' ? undefined : parseDateBound(minText, 'min');
        const max = maxText === '' ? undefined : parseDateBound(maxText, 'max');
        if (minText !== '' && min === undefined) fail(ctx, `"${minText}" is not an ISO 8601 date or date-time`);
        if (maxText !== '' && max === undefined) fail(ctx, `"${maxText}" is not an ISO 8601 date or date-time`);
        if (min !== undefined && max !== undefined && compareInstants(min, max) > 0) fail(ctx, `the minimum ${minText} is after the maximum ${maxText}`);
        return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
      }),
      (value) => `${value.min === undefined ? '' : formatInstant(value.min)},${value.max === undefined ? '' : formatInstant(value.max)}`,
      {
        syntax: 'an inclusive range `min,max` of ISO 8601 dates or date-times (UTC unless a zone is given); either side may be left out; a date alone is its whole UTC day',
        example: '2026-01-01,2026-01-31',
        pattern: `^(${DATE_PATTERN})?(,(${DATE_PATTERN})?)?$`,
      },
    );
  },

  /** `true`/`false`/`1`/`0` (lower case only). */
  boolean(): FilterKind<boolean> {
    return kind(
      z.string().transform((text, ctx) => {
        if (text === 'true' || text === '1') return true;
        if (text === 'false' || text === '0') return false;
        return fail(ctx, 'expected true, false, 1 or 0');
      }),
      String,
      { syntax: '`true`, `false`, `1` or `0`', example: 'true', enum: ['true', 'false', '1', '0'] },
    );
  },

  /** One of the given values, exactly. */
  enumeration<const V extends string>(values: readonly [V, ...V[]]): FilterKind<V> {
    const allowed = new Set<string>(values);
    return kind<V>(
      z.string().transform((text, ctx): V => (allowed.has(text) ? (text as V) : fail(ctx, `expected one of ${values.join(', ')}`))),
      (value) => value,
      { syntax: `one of ${values.map((value) => `\`${value}\``).join(', ')}`, example: values[0], enum: values },
    );
  },

  /**
   * `a,b`: any of `values` (e.g. notification kinds), at most the `max_items` of the repeated proto
   * field `field` they are sent in; deduplicated and kept in the order of `values`, since the order
   * sent does not change which items match.
   */
  enumerations<const V extends string>(values: readonly [V, ...V[]], field: DescField): FilterKind<readonly V[]> {
    const max = maxItems(field);
    const allowed = new Set<string>(values);
    return kind<readonly V[]>(
      z.string().transform((text, ctx) => {
        const items = splitList(text, ctx, 'values', max);
        const bad = items.find((item) => !allowed.has(item));
        if (bad !== undefined) fail(ctx, `"${bad}" is not one of ${values.join(', ')}`);
        return values.filter((value) => items.includes(value));
      }),
      (value) => value.join(','),
      { syntax: `comma-separated values of ${values.map((value) => `\`${value}\``).join(', ')}, at most ${max}`, example: values.slice(0, 2).join(','), pattern: `^(${values.join('|')})(,(${values.join('|')}))*$` },
    );
  },

  /**
   * `c:12,g:3`: story tag ids (characters `c:<n>`, genres `g:<n>`) as the repeated proto field
   * `field` takes them (its `max_items`, its items' `string.pattern`), deduplicated and sorted.
   */
  tags(field: DescField): FilterKind<readonly string[]> {
    const max = maxItems(field);
    const tag = protoPattern(field, 'items');
    const source = unanchored(tag);
    return kind<readonly string[]>(
      z.string().transform((text, ctx) => {
        const items = splitList(text, ctx, 'tags', max);
        const bad = items.find((item) => !tag.test(item));
        if (bad !== undefined) fail(ctx, `"${bad}" is not a tag; tags are c:<id> (characters) or g:<id> (genres)`);
        return [...new Set(items)].sort((a, b) => (a[0] === b[0] ? compareIds(a.slice(2), b.slice(2)) : a < b ? -1 : 1));
      }),
      (value) => value.join(','),
      { syntax: `comma-separated tags \`c:<id>\` (characters) and \`g:<id>\` (genres), at most ${max}`, example: 'c:12,g:3', pattern: `^${source}(,${source})*$` },
    );
  },

  /**
   * `c:12,-g:3`: story tags to require and, written with a leading `-`, to exclude, as the repeated
   * proto fields `included` and `excluded` take them (their items' `string.pattern`; at most the
   * `max_items` of `included` values in all), each deduplicated and sorted like {@link filters.tags}.
   * A tag both required and excluded is allowed (it matches nothing).
   */
  tagSelection(included: DescField, excluded: DescField): FilterKind<TagSelection> {
    const max = Math.min(maxItems(included), maxItems(excluded));
    const tag = protoPattern(included, 'items');
    const excludedTag = protoPattern(excluded, 'items');
    const source = unanchored(tag);
    const canonical = (items: readonly string[]) => [...new Set(items)].sort((a, b) => (a[0] === b[0] ? compareIds(a.slice(2), b.slice(2)) : a < b ? -1 : 1));
    return kind<TagSelection>(
      z.string().transform((text, ctx) => {
        const items = splitList(text, ctx, 'tags', max);
        const bad = items.find((item) => (item.startsWith('-') ? !excludedTag.test(item.slice(1)) : !tag.test(item)));
        if (bad !== undefined) fail(ctx, `"${bad}" is not a tag; tags are c:<id> (characters) or g:<id> (genres), and -c:<id> or -g:<id> to exclude one`);
        return { include: canonical(items.filter((item) => !item.startsWith('-'))), exclude: canonical(items.filter((item) => item.startsWith('-')).map((item) => item.slice(1))) };
      }),
      (value) => [...value.include, ...value.exclude.map((item) => `-${item}`)].join(','),
      {
        syntax: `comma-separated tags \`c:<id>\` (characters) and \`g:<id>\` (genres) the stories must all carry, and \`-c:<id>\`, \`-g:<id>\` they must not carry, at most ${max} in all`,
        example: 'c:12,-g:3',
        pattern: `^-?${source}(,-?${source})*$`,
      },
    );
  },

  /** Free text, non-empty after trimming, at most `maxLength` characters; kept as sent. */
  string(maxLength: number): FilterKind<string> {
    return kind(
      z.string().transform((text, ctx) => {
        if (text.trim() === '') fail(ctx, 'must not be empty');
        if ([...text].length > maxLength) fail(ctx, `must be at most ${maxLength} characters`);
        return text;
      }),
      (value) => value,
      { syntax: `text, not blank, at most ${maxLength} characters`, example: 'dragon' },
    );
  },

  /** Any zod schema from the raw string, with its syntax for the API document; `normalise` defaults to JSON of the value. */
  custom<T>(schema: z.ZodType<T, string>, doc: FilterDoc, normalise: (value: T) => string = (value) => JSON.stringify(value)): FilterKind<T> {
    return kind(schema, normalise, doc);
  },
} as const;
