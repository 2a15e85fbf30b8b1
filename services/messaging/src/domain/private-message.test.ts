import { describe, expect, it } from 'vitest';
import { isParty, isStorageId, normaliseSubject } from './private-message.js';

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
