import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BookshelfPrivacy, BookshelfSchema } from '@inkwell/proto/bookshelves';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { parseCreateBody, parseUpdateBody } from '../jsonapi/index.js';
import { BOOKSHELF_WRITE, bookshelfPrivacyToProto, toBookshelfResource } from './bookshelf.resource.js';

const links = createApiLinks('https://api.inkwell.example');

const shelf = (overrides: MessageInitShape<typeof BookshelfSchema> = {}) =>
  create(BookshelfSchema, {
    id: '5',
    userId: '9',
    name: 'Favourites',
    description: 'The best',
    privacy: BookshelfPrivacy.PRIVATE,
    color: '#3366cc',
    order: 2,
    numStories: 4,
    dateCreated: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
    dateModified: timestampFromDate(new Date('2026-01-03T03:04:05.250Z')),
    ...overrides,
  });

describe('toBookshelfResource', () => {
  it('maps every field, the owner linkage and the canonical link; num_unread only when the service set it', () => {
    expect(toBookshelfResource(shelf({ numUnread: 3 }), links)).toEqual({
      id: '5',
      type: 'bookshelf',
      attributes: {
        name: 'Favourites',
        description: 'The best',
        privacy: 'private',
        color: '#3366cc',
        order: 2,
        num_stories: 4,
        num_unread: 3,
        date_created: '2026-01-02T03:04:05Z',
        date_modified: '2026-01-03T03:04:05.250Z',
      },
      relationships: { user: { data: { type: 'user', id: '9' } } },
      links: { self: 'https://api.inkwell.example/api/v1/bookshelves/5' },
    });
    const seenByOthers = toBookshelfResource(shelf({ privacy: BookshelfPrivacy.PUBLIC }), links).attributes;
    expect(seenByOthers).not.toHaveProperty('num_unread');
    expect(seenByOthers.privacy).toBe('public');
  });

  it('shows num_unread 0 to the owner (set but zero is not unset)', () => {
    expect(toBookshelfResource(shelf({ numUnread: 0 }), links).attributes.num_unread).toBe(0);
  });
});

describe('BOOKSHELF_WRITE', () => {
  const body = (attributes: Record<string, unknown>, id?: string) => ({ data: { type: 'bookshelf', ...(id === undefined ? {} : { id }), attributes } });
  const pointers = (run: () => unknown): string[] => {
    try {
      run();
    } catch (error) {
      return (error as { details: { pointer: string }[] }).details.map((detail) => detail.pointer);
    }
    throw new Error('expected a rejection');
  };

  it('takes the writable attributes and leaves values (length, colour format) to the service', () => {
    const parsed = parseCreateBody(BOOKSHELF_WRITE, body({ name: ' '.repeat(300), description: 'd', privacy: 'public', color: 'red', order: -1 }));
    expect(parsed.attributes).toEqual({ name: ' '.repeat(300), description: 'd', privacy: 'public', color: 'red', order: -1 });
    expect(bookshelfPrivacyToProto(parsed.attributes.privacy)).toBe(BookshelfPrivacy.PUBLIC);
    expect(bookshelfPrivacyToProto(undefined)).toBe(BookshelfPrivacy.UNSPECIFIED);
  });

  it('needs a name on create only, and refuses wrong types and read-only attributes, each with its pointer', () => {
    expect(pointers(() => parseCreateBody(BOOKSHELF_WRITE, body({ privacy: 'hidden', order: 1.5, color: 3, num_stories: 2, user: '1' })))).toEqual([
      '/data/attributes/privacy',
      '/data/attributes/order',
      '/data/attributes/color',
      '/data/attributes/num_stories',
      '/data/attributes/user',
      '/data/attributes/name',
    ]);
    expect(parseUpdateBody(BOOKSHELF_WRITE, body({ order: 3 }, '5'), '5').attributes).toEqual({ order: 3 });
  });
});
