import { describe, expect, it } from 'vitest';
import { parseFeedPath } from './feed-path.js';

describe('parseFeedPath', () => {
  it('names each kind of feed by its id, with a route pattern that never carries the id', () => {
    expect(parseFeedPath('/feeds/stories/12.atom')).toEqual({ kind: 'stories', id: '12', route: '/feeds/stories/:id.atom' });
    expect(parseFeedPath('/feeds/users/3.atom')).toEqual({ kind: 'users', id: '3', route: '/feeds/users/:id.atom' });
    expect(parseFeedPath('/feeds/bookshelves/9223372036854775807.atom')?.kind).toBe('bookshelves');
    expect(parseFeedPath('/feeds/tags/c:12.atom')).toEqual({ kind: 'tags', id: 'c:12', route: '/feeds/tags/:id.atom' });
    expect(parseFeedPath('/feeds/tags/g%3A3.atom')?.id).toBe('g:3');
    expect(parseFeedPath('/feeds/notifications/AbC-_09.atom')).toEqual({ kind: 'notifications', id: 'AbC-_09', route: '/feeds/notifications/:token.atom' });
  });

  it('names no feed for anything else', () => {
    for (const path of [
      '/feeds',
      '/feeds/',
      '/feeds/stories/12',
      '/feeds/stories/12.rss',
      '/feeds/stories/abc.atom',
      '/feeds/stories/012.atom',
      '/feeds/stories/9223372036854775808.atom',
      '/feeds/stories/1/2.atom',
      '/feeds/comments/1.atom',
      '/feeds/__proto__/1.atom',
      '/feeds/tags/x:1.atom',
      '/feeds/tags/12.atom',
      '/feeds/notifications/a%2Fb.atom',
      `/feeds/notifications/${'a'.repeat(65)}.atom`,
      '/api/v1/stories/1.atom',
    ]) {
      expect(parseFeedPath(path), path).toBeUndefined();
    }
  });
});
