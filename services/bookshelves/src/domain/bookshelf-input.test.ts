import { describe, expect, it } from 'vitest';
import { DEFAULT_COLOR } from './bookshelf.js';
import { isEmptyChange, storedChanges, storedShelf } from './bookshelf-input.js';

describe('storedShelf', () => {
  it('trims the name and applies the defaults: private, #3366cc, order left to the service', () => {
    expect(storedShelf({ name: '  Favourites ', description: '' })).toEqual({ name: 'Favourites', description: '', privacy: 'private', color: DEFAULT_COLOR });
  });

  it('keeps what is given, colour in lower case', () => {
    expect(storedShelf({ name: 'A', description: 'd', privacy: 'public', color: '#AABBCC', order: -3 })).toEqual({ name: 'A', description: 'd', privacy: 'public', color: '#aabbcc', order: -3 });
  });
});

describe('storedChanges', () => {
  it('puts what is set in stored form, as on create', () => {
    expect(storedChanges({ color: '#00FF00' })).toEqual({ color: '#00ff00' });
    expect(storedChanges({ name: ' Read ', order: 2 })).toEqual({ name: 'Read', order: 2 });
  });

  it('tells an empty change apart', () => {
    expect(isEmptyChange({})).toBe(true);
    expect(isEmptyChange({ order: 0 })).toBe(false);
  });
});
