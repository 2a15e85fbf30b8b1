/**
 * An exact instant: whole seconds since the Unix epoch and nanoseconds within the second.
 * Structurally a protobuf `Timestamp` init (`{ seconds, nanos }`), so route code can pass it
 * to a gRPC request as is. Sub-millisecond precision of the client's value is kept, which a
 * `Date` would lose (an inclusive maximum of `...:00.1234567Z` must not drop `...:00.1234561Z`).
 */
export interface Instant {
  readonly seconds: bigint;
  readonly nanos: number;
}

/** Which end of a range a date value bounds: a date without time covers its whole UTC day. */
export type DateBoundSide = 'min' | 'max';

const NANOS_PER_SECOND = 1_000_000_000;
const SECONDS_PER_DAY = 86_400n;

// YYYY-MM-DD, optionally followed by THH:MM[:SS[.fraction]] and a zone (Z, ±HH:MM or ±HHMM).
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses an ISO 8601 date or date-time (docs/api/lists.md, "Filters") as one bound of a range.
 * - `2026-11-21` (a date) is the whole day in UTC: its first nanosecond as a `min`, its last
 *   (`23:59:59.999999999`) as a `max`, so that both bounds stay inclusive.
 * - `2026-11-21T19:00Z`, `…T19:00:00.25+01:00`, `…T19:00:00-0530`: an exact instant. Seconds are
 *   optional, fractions up to nanoseconds; a date-time without a zone is taken as UTC (the API
 *   speaks UTC only).
 * Returns undefined for anything else, including impossible calendar values (`2026-02-30`,
 * `24:00`, leap seconds) and years outside 0001–9999 (protobuf Timestamp's range).
 */
export function parseDateBound(text: string, side: DateBoundSide): Instant | undefined {
  const match = ISO_8601.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const dayStart = epochDay(year, month, day) * SECONDS_PER_DAY;
  if (h === undefined) {
    return side === 'min' ? { seconds: dayStart, nanos: 0 } : { seconds: dayStart + SECONDS_PER_DAY - 1n, nanos: NANOS_PER_SECOND - 1 };
  }
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = zone === undefined ? 0 : zoneOffsetSeconds(zone);
  if (offset === undefined) return undefined;
  const seconds = dayStart + BigInt(hour * 3600 + minute * 60 + second - offset);
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, '0'));
  return { seconds, nanos };
}

/** Orders two instants: negative when `a` is earlier, 0 when equal, positive when later. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos - b.nanos;
}

/** The instant as an ISO 8601 UTC string with nanoseconds (for logs, messages and cursor bindings). */
export function formatInstant(instant: Instant): string {
  const ms = Number(instant.seconds) * 1000;
  const base = new Date(ms).toISOString().slice(0, 19);
  return `${base}.${String(instant.nanos).padStart(9, '0')}Z`;
}

/** Converts an instant to a `Date` (millisecond precision, truncating). */
export function instantToDate(instant: Instant): Date {
  return new Date(Number(instant.seconds) * 1000 + Math.floor(instant.nanos / 1_000_000));
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Date.UTC maps years 0–99 to 1900–1999, so it is not used). */
function epochDay(year: number, month: number, day: number): bigint {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return BigInt(Math.round(date.getTime() / 86_400_000));
}

function zoneOffsetSeconds(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 3600 + minutes * 60);
}
