import { describe, expect, it } from 'vitest';
import type { InboxPage, InboxQuery, Notification, ReadMark } from '../domain/notification.js';
import { NotificationService, type NotificationStore } from './notification.service.js';

const caller = (userId?: string) => ({ requestId: 'r', scopes: ['read_notifications'], ...(userId === undefined ? {} : { userId }) });

/** A store that remembers what it was asked and answers from fixed data. */
class FixedStore implements NotificationStore {
  readonly queries: InboxQuery[] = [];
  readonly tokens = new Map<string, string>();
  constructor(private readonly page: InboxPage) {}
  async listPage(query: InboxQuery): Promise<InboxPage> {
    this.queries.push(query);
    return this.page;
  }
  async unreadCount(): Promise<number> {
    return 3;
  }
  async findVisible(): Promise<Notification | undefined> {
    return undefined;
  }
  async setRead(): Promise<Notification | undefined> {
    return undefined;
  }
  async markRead(_userId: string, _mark: ReadMark): Promise<number> {
    return 2;
  }
  async saveFeedToken(userId: string, hash: Buffer): Promise<Date> {
    this.tokens.set(hash.toString('hex'), userId);
    return new Date(0);
  }
  async deleteFeedToken(userId: string): Promise<boolean> {
    for (const [hash, owner] of this.tokens) if (owner === userId) return this.tokens.delete(hash);
    return false;
  }
  async feedByToken(hash: Buffer): Promise<{ userId: string; notifications: Notification[] } | undefined> {
    const userId = this.tokens.get(hash.toString('hex'));
    return userId === undefined ? undefined : { userId, notifications: this.page.notifications };
  }
}

const notification = (id: string): Notification => ({ id, userId: '1', kind: 'new_follower', read: false, dateCreated: new Date(0), actorId: '2', reasons: [] });

describe('NotificationService', () => {
  it('lists the caller\'s own inbox, with the position of the next page only when more follow', async () => {
    const store = new FixedStore({ notifications: [notification('9'), notification('8')], more: true });
    const service = new NotificationService(store);
    const listing = await service.list({ userId: '0', pageSize: 0, after: 'n10', kinds: ['blog_post'] }, caller('1'));
    expect(listing).toMatchObject({ nextAfter: 'n8', unread: 3 });
    expect(store.queries).toEqual([{ userId: '1', pageSize: 20, beforeId: '10', kinds: ['blog_post'] }]);
    const last = await new NotificationService(new FixedStore({ notifications: [notification('9')], more: false })).list({ userId: '1', pageSize: 5, after: '' }, caller('1'));
    expect(last.nextAfter).toBe('');
  });

  it('is NOT_FOUND for another user\'s inbox and INVALID_ARGUMENT for a foreign cursor', async () => {
    const service = new NotificationService(new FixedStore({ notifications: [], more: false }));
    await expect(service.list({ userId: '2', pageSize: 0, after: '' }, caller('1'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.markRead('2', { upToId: '1' }, caller('1'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.list({ userId: '1', pageSize: 0, after: 'abc' }, caller('1'))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(service.update('not-an-id', true, caller('1'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('issues a feed token that only its hash finds, replaced by the next one', async () => {
    const store = new FixedStore({ notifications: [notification('9')], more: false });
    const service = new NotificationService(store);
    const first = await service.createFeedToken('1', caller('1'));
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(store.tokens.has(first.token)).toBe(false);
    expect((await service.feed(first.token, caller())).userId).toBe('1');
    await service.revokeFeedToken('1', caller('1'));
    await expect(service.feed(first.token, caller())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.feed('../etc/passwd', caller())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
