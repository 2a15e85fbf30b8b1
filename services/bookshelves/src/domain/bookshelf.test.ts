import { describe, expect, it } from 'vitest';
import { asSeenBy, shelfAccess, unpublishedVisibleFor, type Bookshelf, type Caller } from './bookshelf.js';
import { supersedes, type StoryState } from './known-story.js';

const owner: Caller = { userId: '1', scopes: ['read_bookshelves'] };
const ownerWithoutScope: Caller = { userId: '1', scopes: [] };
const other: Caller = { userId: '2', scopes: ['read_bookshelves'] };
const app: Caller = { appId: 'app', scopes: [] };

describe('shelfAccess', () => {
  it('shows public shelves to everyone, app-only callers included', () => {
    for (const caller of [owner, ownerWithoutScope, other, app]) expect(shelfAccess({ ownerId: '1', privacy: 'public' }, caller)).toBe('visible');
  });

  it('shows a private shelf only to its owner with read_bookshelves', () => {
    const shelf = { ownerId: '1', privacy: 'private' } as const;
    expect(shelfAccess(shelf, owner)).toBe('visible');
    expect(shelfAccess(shelf, ownerWithoutScope)).toBe('needs_scope');
    expect(shelfAccess(shelf, other)).toBe('hidden');
    expect(shelfAccess(shelf, app)).toBe('hidden');
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

describe('supersedes', () => {
  const at = (ms: number, deleted = false): StoryState => ({ storyId: '1', authorId: '1', published: true, deleted, version: new Date(ms) });

  it('lets a newer or equal version replace the stored state, never an older one', () => {
    expect(supersedes(at(2), at(1))).toBe(true);
    expect(supersedes(at(1), at(1))).toBe(true);
    expect(supersedes(at(1), at(2))).toBe(false);
  });

  it('never replaces a deletion', () => {
    expect(supersedes(at(9), at(1, true))).toBe(false);
  });
});
