import { describe, expect, it } from 'vitest';
import { oldestMappingVersion, searchText } from './story-index.mapping.js';

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

describe('oldestMappingVersion', () => {
  it('takes the oldest version of the indices named, 1 for an index without one, nothing for no index', () => {
    expect(oldestMappingVersion({ a: { mappings: { _meta: { mapping_version: 3 } } }, b: { mappings: { _meta: { mapping_version: 2 } } } })).toBe(2);
    expect(oldestMappingVersion({ a: { mappings: { _meta: { mapping_version: 2 } } }, b: { mappings: { properties: {} } } })).toBe(1);
    expect(oldestMappingVersion({})).toBeUndefined();
  });
});
