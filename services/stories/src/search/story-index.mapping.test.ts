import { describe, expect, it } from 'vitest';
import { searchText } from './story-index.mapping.js';

describe('searchText', () => {
  it('repeats each field by its weight, title 4, each tag name 3, short description 2, description 1, and leaves out empty ones', () => {
    expect(searchText({ title: 'Heart', tag_names: ['Fantasy', 'Sherlock Holmes'], short_description: 'A tale.', description: '' })).toEqual([
      ...Array<string>(4).fill('Heart'),
      ...Array<string>(3).fill('Fantasy'),
      ...Array<string>(3).fill('Sherlock Holmes'),
      'A tale.',
      'A tale.',
    ]);
  });
});
