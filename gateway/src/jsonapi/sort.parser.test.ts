import { describe, expect, it } from 'vitest';
import { parseSort, sortOrderOf, type SortSpec } from './sort.parser.js';

const spec: SortSpec<'date_posted' | 'num_views' | 'relevance'> = { fields: ['date_posted', 'num_views', 'relevance'], default: '-date_posted', relevance: 'relevance' };

describe('parseSort', () => {
  it('reads ascending and descending fields and falls back to the default', () => {
    expect(parseSort(['num_views'], spec, false)).toEqual({ field: 'num_views', descending: false });
    expect(parseSort(['-num_views'], spec, false)).toEqual({ field: 'num_views', descending: true });
    expect(parseSort([], spec, false)).toEqual({ field: 'date_posted', descending: true });
    expect(sortOrderOf('name')).toEqual({ field: 'name', descending: false });
  });

  it('leaves the order to the backend when the spec has no default', () => {
    expect(parseSort([], { fields: ['name'] }, false)).toBeUndefined();
    expect(parseSort(['-name'], { fields: ['name'] }, false)).toEqual({ field: 'name', descending: true });
  });

  it('allows relevance only with a search query', () => {
    expect(parseSort(['-relevance'], spec, true)).toEqual({ field: 'relevance', descending: true });
    expect(() => parseSort(['-relevance'], spec, false)).toThrow(/needs a search/);
  });

  it('rejects two fields, unknown fields and a lone minus', () => {
    expect(() => parseSort(['a,b'], spec, false)).toThrow(/one field only/);
    expect(() => parseSort(['-title'], spec, false)).toThrow(/"title" is not a sort field here/);
    expect(() => parseSort(['-'], spec, false)).toThrow(/empty/);
  });
});
