import { describe, expect, it } from 'vitest';
import { DEFAULT_COLOR, MAX_DESCRIPTION_BYTES } from './bookshelf.js';
import { isEmptyChange, POINTERS, validateNewShelf, validateShelfChanges } from './bookshelf-input.js';

const pointers = (result: { ok: boolean; problems?: { pointer: string }[] }) => (result.ok ? [] : (result.problems ?? []).map((problem) => problem.pointer));

describe('validateNewShelf', () => {
  it('trims the name and applies the defaults: private, #3366cc, order left to the service', () => {
    expect(validateNewShelf({ name: '  Favourites ', description: '' })).toEqual({
      ok: true,
      value: { name: 'Favourites', description: '', privacy: 'private', color: DEFAULT_COLOR },
    });
  });

  it('keeps what is given, colour in lower case', () => {
    expect(validateNewShelf({ name: 'A', description: 'd', privacy: 'public', color: '#AABBCC', order: -3 })).toEqual({
      ok: true,
      value: { name: 'A', description: 'd', privacy: 'public', color: '#aabbcc', order: -3 },
    });
  });

  it('needs a name that is not blank', () => {
    expect(pointers(validateNewShelf({ name: '', description: '' }))).toEqual([POINTERS.name]);
    expect(pointers(validateNewShelf({ name: ' \n\t ', description: '' }))).toEqual([POINTERS.name]);
  });

  it('takes 200 characters of name (counted as code points) but not 201', () => {
    expect(validateNewShelf({ name: 'x'.repeat(200), description: '' }).ok).toBe(true);
    expect(validateNewShelf({ name: '📚'.repeat(200), description: '' }).ok).toBe(true);
    expect(pointers(validateNewShelf({ name: 'x'.repeat(201), description: '' }))).toEqual([POINTERS.name]);
  });

  it('takes a 1 MiB description but not one byte more', () => {
    expect(validateNewShelf({ name: 'n', description: 'x'.repeat(MAX_DESCRIPTION_BYTES) }).ok).toBe(true);
    expect(pointers(validateNewShelf({ name: 'n', description: 'é'.repeat(MAX_DESCRIPTION_BYTES / 2) + 'x' }))).toEqual([POINTERS.description]);
  });

  it('refuses colours not written #rrggbb', () => {
    for (const color of ['red', '#fff', '#12345g', '123456', '#1234567', '']) {
      expect(pointers(validateNewShelf({ name: 'n', description: '', color }))).toEqual([POINTERS.color]);
    }
  });

  it('reports every problem at once', () => {
    expect(pointers(validateNewShelf({ name: '', description: '', color: 'blue', order: 2 ** 31 }))).toEqual([POINTERS.name, POINTERS.color, POINTERS.order]);
  });
});

describe('validateShelfChanges', () => {
  it('validates only what is set, with the create rules', () => {
    expect(validateShelfChanges({ color: '#00FF00' })).toEqual({ ok: true, value: { color: '#00ff00' } });
    expect(pointers(validateShelfChanges({ name: '   ' }))).toEqual([POINTERS.name]);
  });

  it('tells an empty change apart', () => {
    expect(isEmptyChange({})).toBe(true);
    expect(isEmptyChange({ order: 0 })).toBe(false);
  });
});
