import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { BookshelfPrivacy, CreateBookshelfRequestSchema, UpdateBookshelfRequestSchema } from '@inkwell/proto/bookshelves';
import type { Bookshelf } from '../domain/bookshelf.js';
import { fromCreateRequest, fromUpdateRequest, toProtoBookshelf } from './bookshelf.mappers.js';

const shelf: Bookshelf = {
  id: '5', ownerId: '1', name: 'n', description: 'd', privacy: 'private', color: '#3366cc', order: 2, numStories: 3, numUnread: 1,
  dateCreated: new Date(Date.UTC(2026, 0, 1)), dateModified: new Date(Date.UTC(2026, 0, 2)),
};

describe('bookshelf mappers', () => {
  it('sets num_unread exactly when the service left it on', () => {
    expect(toProtoBookshelf(shelf).numUnread).toBe(1);
    const { numUnread: _unread, ...forOthers } = shelf;
    expect(toProtoBookshelf(forOthers).numUnread).toBeUndefined();
    expect(toProtoBookshelf(shelf)).toMatchObject({ userId: '1', privacy: BookshelfPrivacy.PRIVATE, order: 2, numStories: 3 });
  });

  it('leaves unset create fields to the defaults (UNSPECIFIED privacy, no colour, no order)', () => {
    expect(fromCreateRequest(create(CreateBookshelfRequestSchema, { userId: '1', name: 'x' }))).toEqual({ name: 'x', description: '' });
    expect(fromCreateRequest(create(CreateBookshelfRequestSchema, { userId: '1', name: 'x', privacy: BookshelfPrivacy.PUBLIC, color: '#ffffff', order: 0 }))).toEqual({
      name: 'x', description: '', privacy: 'public', color: '#ffffff', order: 0,
    });
  });

  it('turns only the set update fields into changes; an empty description is a change', () => {
    expect(fromUpdateRequest(create(UpdateBookshelfRequestSchema, { id: '5' }))).toEqual({});
    expect(fromUpdateRequest(create(UpdateBookshelfRequestSchema, { id: '5', description: '', privacy: BookshelfPrivacy.PRIVATE, order: 0 }))).toEqual({
      description: '', privacy: 'private', order: 0,
    });
  });
});
