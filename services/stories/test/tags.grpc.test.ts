import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { SortDirection, TagKind, TagSortField, type ListTagsRequestSchema } from '@inkwell/proto/stories';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { caller, startStories, type StoriesHarness } from './harness.js';

describe('the tag catalogue over gRPC', () => {
  let h: StoriesHarness;
  const reader = () => caller({ appId: 'tags-test' });

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_tags');
    await h.pool.query("UPDATE tags SET num_stories = 7 WHERE id IN ('g:3', 'c:9')");
    await h.pool.query("UPDATE tags SET num_stories = 12 WHERE id = 'g:5'");
  });

  afterAll(async () => {
    await h?.close();
  });

  async function all(request: MessageInitShape<typeof ListTagsRequestSchema>, pageSize = 37) {
    const tags = [];
    let after = '';
    do {
      const page = await h.client.listTags({ ...request, pageSize, after }, reader());
      tags.push(...page.tags);
      after = page.nextAfter;
    } while (after !== '');
    return tags;
  }

  it('seeds a catalogue of a few hundred characters and genres with ids in filter form', async () => {
    const tags = await all({});
    expect(tags.length).toBeGreaterThan(300);
    expect(tags[0]).toMatchObject({ id: 'c:1', name: 'Elizabeth Bennet', kind: TagKind.CHARACTER, slug: 'elizabeth-bennet' });
    expect(tags.every((tag) => /^[cg]:[1-9][0-9]*$/.test(tag.id))).toBe(true);
    expect(new Set(tags.map((tag) => tag.id)).size).toBe(tags.length);
    const genres = await all({ kind: TagKind.GENRE });
    expect(genres.length).toBeGreaterThan(30);
    expect(genres.every((tag) => tag.kind === TagKind.GENRE)).toBe(true);
    expect(genres.map((tag) => tag.id)).toEqual(genres.map((_, i) => `g:${i + 1}`));
  });

  it('sorts by name and by -num_stories with ties by id', async () => {
    const byName = await all({ sort: { field: TagSortField.NAME } });
    // In the database's collation, across pages.
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM tags ORDER BY name, id');
    expect(byName.map((tag) => tag.id)).toEqual(rows.map((row) => row.id));
    expect(byName.findIndex((tag) => tag.name === 'Alice')).toBeLessThan(byName.findIndex((tag) => tag.name === 'Zeus'));
    const popular = await all({ sort: { field: TagSortField.NUM_STORIES, direction: SortDirection.DESCENDING } }, 5);
    expect(popular.slice(0, 3).map((tag) => tag.id)).toEqual(['g:5', 'g:3', 'c:9']);
  });

  it('looks tags up by id in the order asked, leaving unknown ones out', async () => {
    const { tags } = await h.client.batchGetTags({ ids: ['g:2', 'c:99999', 'c:1', 'nonsense'] }, reader());
    expect(tags.map((tag) => tag.id)).toEqual(['g:2', 'c:1']);
  });

  it('rejects a cursor of another sort', async () => {
    const page = await h.client.listTags({ pageSize: 2 }, reader());
    await expect(h.client.listTags({ pageSize: 2, after: page.nextAfter, sort: { field: TagSortField.NAME } }, reader())).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }],
    });
  });
});
