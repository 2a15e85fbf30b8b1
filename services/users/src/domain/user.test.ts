import { describe, expect, it } from 'vitest';
import { isUserId, visibleTo, type User } from './user.js';

const user: User = {
  id: '7', name: 'ada', email: 'ada@example.org', bio: '', bioHtml: '',
  numFollowers: 0, numFollowing: 0, numStories: 0, numBlogPosts: 0, dateJoined: new Date(0),
};

describe('visibleTo', () => {
  it('shows the e-mail only to the user themself with read_user', () => {
    expect(visibleTo(user, { userId: '7', scopes: ['read_user'] }).email).toBe('ada@example.org');
    expect(visibleTo(user, { userId: '7', scopes: [] }).email).toBeUndefined();
    expect(visibleTo(user, { userId: '8', scopes: ['read_user'] }).email).toBeUndefined();
    expect(visibleTo(user, { scopes: ['read_user'] }).email).toBeUndefined();
  });
});

describe('isUserId', () => {
  it('accepts positive bigints only', () => {
    expect(isUserId('1')).toBe(true);
    expect(isUserId('9223372036854775807')).toBe(true);
    expect(isUserId('9223372036854775808')).toBe(false);
    expect(isUserId('0')).toBe(false);
    expect(isUserId('01')).toBe(false);
    expect(isUserId('-1')).toBe(false);
    expect(isUserId('me')).toBe(false);
  });
});
