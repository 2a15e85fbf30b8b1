import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BookshelfItemSchema } from '@inkwell/proto/bookshelves';
import { describe, expect, it } from 'vitest';
import { parseCreateBody, parseUpdateBody } from '../jsonapi/index.js';
import { BOOKSHELF_ITEM_CREATE, BOOKSHELF_ITEM_UPDATE, toBookshelfItemResource } from './bookshelf-item.resource.js';

describe('toBookshelfItemResource', () => {
  it('maps the date and read flag with bookshelf and story linkage, without links (no GET-by-id endpoint)', () => {
    const item = create(BookshelfItemSchema, { id: '8', bookshelfId: '5', storyId: '3', read: true, dateAdded: timestampFromDate(new Date('2026-02-03T04:05:06Z')) });
    expect(toBookshelfItemResource(item)).toEqual({
      id: '8',
      type: 'bookshelf_item',
      attributes: { date_added: '2026-02-03T04:05:06Z', read: true },
      relationships: { bookshelf: { data: { type: 'bookshelf', id: '5' } }, story: { data: { type: 'story', id: '3' } } },
    });
  });
});

describe('bookshelf item bodies', () => {
  const item = (members: Record<string, unknown>) => ({ data: { type: 'bookshelf_item', ...members } });
  const story = (id: unknown) => ({ story: { data: { type: 'story', id } } });
  const rejection = (run: () => unknown): unknown => {
    try {
      run();
    } catch (error) {
      return error;
    }
    throw new Error('expected a rejection');
  };

  it('creates from a story relationship with an optional read flag', () => {
    expect(parseCreateBody(BOOKSHELF_ITEM_CREATE, item({ relationships: story('3') }))).toEqual({ attributes: {}, relationships: { story: '3' } });
    expect(parseCreateBody(BOOKSHELF_ITEM_CREATE, item({ attributes: { read: true }, relationships: story('3') })).attributes).toEqual({ read: true });
  });

  it('needs the story, a numeric story id and a boolean read flag', () => {
    for (const [members, pointer] of [
      [{ attributes: { read: false } }, '/data/relationships/story'],
      [{ relationships: story(3) }, '/data/relationships/story/data/id'],
      [{ relationships: { story: { data: { type: 'user', id: '3' } } } }, '/data/relationships/story/data/type'],
      [{ attributes: { read: 'yes' }, relationships: story('3') }, '/data/attributes/read'],
      [{ attributes: { date_added: '2026-01-01' }, relationships: story('3') }, '/data/attributes/date_added'],
      [{ relationships: { ...story('3'), bookshelf: { data: { type: 'bookshelf', id: '1' } } } }, '/data/relationships/bookshelf'],
    ] as const) {
      expect(rejection(() => parseCreateBody(BOOKSHELF_ITEM_CREATE, item(members)))).toMatchObject({ details: [{ reason: 'validation_failed', pointer }] });
    }
  });

  it('updates read only: the story of an item cannot change', () => {
    expect(parseUpdateBody(BOOKSHELF_ITEM_UPDATE, item({ id: '8', attributes: { read: true } }), '8').attributes).toEqual({ read: true });
    expect(rejection(() => parseUpdateBody(BOOKSHELF_ITEM_UPDATE, item({ id: '8', relationships: story('4') }), '8'))).toMatchObject({
      details: [{ reason: 'validation_failed', pointer: '/data/relationships/story' }],
    });
  });
});
