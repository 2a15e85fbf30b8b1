import { describe, expect, it } from 'vitest';
import { ownsShelf, shelfAccess } from './shelf-access.js';

const owner = { userId: '7', scopes: ['read_bookshelves'] };
const ownerWithoutScope = { userId: '7', scopes: [] };
const other = { userId: '8', scopes: ['read_bookshelves'] };
const app = { appId: 'a', scopes: ['read_bookshelves'] };

describe('shelfAccess', () => {
  it('shows a public shelf to everyone, scope or not', () => {
    const shelf = { ownerId: '7', private: false };
    for (const viewer of [owner, ownerWithoutScope, other, app]) expect(shelfAccess(shelf, viewer)).toBe('visible');
  });

  it('shows a private shelf to its owner with read_bookshelves, asks the owner without it for the scope, hides it from others', () => {
    const shelf = { ownerId: '7', private: true };
    expect(shelfAccess(shelf, owner)).toBe('visible');
    expect(shelfAccess(shelf, ownerWithoutScope)).toBe('needs_scope');
    expect(shelfAccess(shelf, other)).toBe('hidden');
    expect(shelfAccess(shelf, app)).toBe('hidden');
  });

  it('treats an unknown shelf like another user’s private one', () => {
    expect(shelfAccess(undefined, owner)).toBe('hidden');
  });
});

describe('ownsShelf', () => {
  it('is true for the signed-in owner only, scope or not', () => {
    const shelf = { ownerId: '7', private: false };
    expect(ownsShelf(shelf, owner)).toBe(true);
    expect(ownsShelf(shelf, ownerWithoutScope)).toBe(true);
    expect(ownsShelf(shelf, other)).toBe(false);
    expect(ownsShelf(shelf, app)).toBe(false);
    expect(ownsShelf(undefined, owner)).toBe(false);
  });
});
