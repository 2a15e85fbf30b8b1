import { describe, expect, it } from 'vitest';
import { CONTENT_MAX_BYTES, draftProblems, isParty, isStorageId, normaliseSubject, SUBJECT_MAX_CHARS } from './private-message.js';

describe('draftProblems', () => {
  it('accepts a subject and content with text', () => {
    expect(draftProblems({ subject: 'Hello', content: 'How are *you*?' })).toEqual([]);
  });

  it('requires subject and content to be non-empty after trimming, reporting both', () => {
    expect(draftProblems({ subject: ' \t\n', content: '' })).toEqual([
      { attribute: 'subject', detail: expect.stringContaining('required') },
      { attribute: 'content', detail: expect.stringContaining('required') },
    ]);
    expect(draftProblems({ subject: 'ok', content: '   \n ' }).map((problem) => problem.attribute)).toEqual(['content']);
  });

  it('allows exactly 200 characters of subject as sent, counting characters not UTF-16 units', () => {
    expect(draftProblems({ subject: 'x'.repeat(SUBJECT_MAX_CHARS), content: 'c' })).toEqual([]);
    expect(draftProblems({ subject: ` ${'x'.repeat(SUBJECT_MAX_CHARS)}`, content: 'c' }).map((problem) => problem.attribute)).toEqual(['subject']);
    expect(draftProblems({ subject: '😀'.repeat(SUBJECT_MAX_CHARS), content: 'c' })).toEqual([]);
    expect(draftProblems({ subject: 'x'.repeat(SUBJECT_MAX_CHARS + 1), content: 'c' })).toEqual([{ attribute: 'subject', detail: expect.stringContaining('200') }]);
  });

  it('allows exactly 1 MiB of UTF-8 content and refuses one byte more', () => {
    expect(draftProblems({ subject: 's', content: 'a'.repeat(CONTENT_MAX_BYTES) })).toEqual([]);
    expect(draftProblems({ subject: 's', content: 'a'.repeat(CONTENT_MAX_BYTES + 1) })).toEqual([{ attribute: 'content', detail: expect.stringContaining('1 MiB') }]);
    // 'é' is two bytes: half as many characters reach the limit.
    expect(draftProblems({ subject: 's', content: 'é'.repeat(CONTENT_MAX_BYTES / 2) })).toEqual([]);
    expect(draftProblems({ subject: 's', content: `${'é'.repeat(CONTENT_MAX_BYTES / 2)}a` }).map((problem) => problem.attribute)).toEqual(['content']);
  });
});

describe('normaliseSubject', () => {
  it('trims surrounding whitespace and keeps the inside', () => {
    expect(normaliseSubject('  Re:  plans \n')).toBe('Re:  plans');
  });
});

describe('isParty', () => {
  it('is true for the sender and the recipient only', () => {
    const message = { senderId: '1', recipientId: '2' };
    expect(isParty(message, '1')).toBe(true);
    expect(isParty(message, '2')).toBe(true);
    expect(isParty(message, '3')).toBe(false);
  });
});

describe('isStorageId', () => {
  it('accepts positive bigints and nothing else', () => {
    expect(isStorageId('1')).toBe(true);
    expect(isStorageId('9223372036854775807')).toBe(true);
    for (const bad of ['', '0', '01', '-1', '1.5', 'abc', '9223372036854775808', '99999999999999999999']) expect(isStorageId(bad), bad).toBe(false);
  });
});
