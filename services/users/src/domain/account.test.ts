import { describe, expect, it } from 'vitest';
import { normalizeEmail, normalizeName } from './account.js';

describe('account normal forms', () => {
  it('treats the two Unicode spellings of ë as one name', () => {
    expect(normalizeName('bronte\u0308')).toBe(normalizeName('bront\u00eb'));
  });

  it('trims an e-mail address and keeps its case', () => {
    expect(normalizeEmail('  Ada@Example.org \n')).toBe('Ada@Example.org');
  });
});
