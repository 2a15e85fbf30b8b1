import { describe, expect, it } from 'vitest';
import { accessFacts, asSeenBy, unpublishedVisibleFor, type Bookshelf, type Caller } from './bookshelf.js';

const owner: Caller = { userId: '1', scopes: ['read_bookshelves'] };
const other: Caller = { userId: '2', scopes: ['read_bookshelves'] };
const app: Caller = { appId: 'app', scopes: [] };

describe('accessFacts', () => {
  it('reads a public shelf as not private and every other privacy as private', () => {
    expect(accessFacts({ ownerId: '1', privacy: 'public' })).toEqual({ ownerId: '1', private: false });
    expect(accessFacts({ ownerId: '1', privacy: 'private' })).toEqual({ ownerId: '1', private: true });
  });
});

describe('asSeenBy', () => {
  const shelf: Bookshelf = { id: '5', ownerId: '1', name: 'n', description: '', privacy: 'public', color: '#3366cc', order: 0, numStories: 3, numUnread: 2, dateCreated: new Date(0), dateModified: new Date(0) };

  it('keeps num_unread for the owner only', () => {
    expect(asSeenBy(shelf, owner).numUnread).toBe(2);
    expect(asSeenBy(shelf, other)).not.toHaveProperty('numUnread');
    expect(asSeenBy(shelf, app)).not.toHaveProperty('numUnread');
  });
});

describe('unpublishedVisibleFor', () => {
  it('is the caller with read_stories, nobody otherwise', () => {
    expect(unpublishedVisibleFor({ userId: '7', scopes: ['read_stories'] })).toBe('7');
    expect(unpublishedVisibleFor({ userId: '7', scopes: [] })).toBeUndefined();
    expect(unpublishedVisibleFor({ appId: 'a', scopes: ['read_stories'] })).toBeUndefined();
  });
});
