import { describe, expect, it } from 'vitest';
import { compareInstants, formatInstant, instantToDate, parseDateBound } from './date-values.js';

const at = (iso: string): bigint => BigInt(Date.parse(iso) / 1000);

describe('parseDateBound', () => {
  it('takes a date without time as the whole UTC day: its start as a minimum, its last nanosecond as a maximum', () => {
    expect(parseDateBound('2026-01-31', 'min')).toEqual({ seconds: at('2026-01-31T00:00:00Z'), nanos: 0 });
    expect(parseDateBound('2026-01-31', 'max')).toEqual({ seconds: at('2026-01-31T23:59:59Z'), nanos: 999_999_999 });
  });

  it('takes a date-time as that exact instant on either side, converting offsets to UTC', () => {
    for (const side of ['min', 'max'] as const) {
      expect(parseDateBound('2026-11-21T19:00:00Z', side)).toEqual({ seconds: at('2026-11-21T19:00:00Z'), nanos: 0 });
      expect(parseDateBound('2026-11-21T20:00+01:00', side)).toEqual({ seconds: at('2026-11-21T19:00:00Z'), nanos: 0 });
      expect(parseDateBound('2026-11-21T13:30:00-0530', side)).toEqual({ seconds: at('2026-11-21T19:00:00Z'), nanos: 0 });
    }
  });

  it('keeps fractions down to nanoseconds and treats a date-time without zone as UTC', () => {
    expect(parseDateBound('2026-11-21T19:00:00.25Z', 'max')).toEqual({ seconds: at('2026-11-21T19:00:00Z'), nanos: 250_000_000 });
    expect(parseDateBound('2026-11-21T19:00:00.123456789', 'min')).toEqual({ seconds: at('2026-11-21T19:00:00Z'), nanos: 123_456_789 });
  });

  it('handles leap years and years before 1970 and below 100', () => {
    expect(parseDateBound('2024-02-29', 'min')).toEqual({ seconds: at('2024-02-29T00:00:00Z'), nanos: 0 });
    expect(parseDateBound('1969-12-31T23:59:59Z', 'min')).toEqual({ seconds: -1n, nanos: 0 });
    expect(formatInstant(parseDateBound('0050-06-01', 'min')!)).toBe('0050-06-01T00:00:00.000000000Z');
  });

  it.each(['', '2026', '2026-1-01', '2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '0000-01-01', '2026-01-01T24:00Z', '2026-01-01T10:60Z', '2026-01-01T10:00:60Z', '2026-01-01 10:00Z', '2026-01-01T10Z', '2026-01-01T10:00+25:00', '2026-01-01T10:00:00.1234567891Z', 'yesterday', '1700000000'])(
    'rejects %j',
    (text) => {
      expect(parseDateBound(text, 'min')).toBeUndefined();
    },
  );
});

describe('instants', () => {
  it('compare by seconds, then nanos', () => {
    expect(compareInstants({ seconds: 1n, nanos: 5 }, { seconds: 1n, nanos: 6 })).toBeLessThan(0);
    expect(compareInstants({ seconds: 2n, nanos: 0 }, { seconds: 1n, nanos: 999_999_999 })).toBeGreaterThan(0);
    expect(compareInstants({ seconds: 2n, nanos: 3 }, { seconds: 2n, nanos: 3 })).toBe(0);
  });

  it('convert to Date with millisecond precision', () => {
    expect(instantToDate({ seconds: at('2026-01-01T00:00:00Z'), nanos: 999_999_999 }).toISOString()).toBe('2026-01-01T00:00:00.999Z');
  });
});
