import { create } from '@bufbuild/protobuf';
import { TagKind, TagSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { toTagResource } from './tag.resource.js';

describe('toTagResource', () => {
  it('uses the filter form as id and has no links (tags have no GET-by-id endpoint)', () => {
    expect(toTagResource(create(TagSchema, { id: 'c:12', name: 'Ada', kind: TagKind.CHARACTER, slug: 'ada', numStories: 4 }))).toEqual({
      id: 'c:12',
      type: 'tag',
      attributes: { name: 'Ada', kind: 'character', slug: 'ada', num_stories: 4 },
    });
    expect(toTagResource(create(TagSchema, { id: 'g:1', kind: TagKind.GENRE })).attributes.kind).toBe('genre');
  });
});
