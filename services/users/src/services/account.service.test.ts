import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryUsers } from '../testing/memory.repositories.js';
import { SignInLockedError } from './account.service.js';

const ada = { name: 'ada', email: 'ada@example.com', password: 'correct horse battery' };
const invalidCredentials = { code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_credentials' }] };

afterAll(closeMarkdown);

describe('AccountService registration and profiles', () => {
  it('registers a user with zero counts and shows the e-mail only to themself with read_user', async () => {
    const { accounts } = memoryUsers();
    const user = await accounts.register({ ...ada, bio: 'I *write*.' });
    expect(user).toMatchObject({ name: 'ada', email: 'ada@example.com', numFollowers: 0, numFollowing: 0 });
    expect(user.bioHtml).toContain('<em>write</em>');

    expect((await accounts.getUser(user.id, { userId: user.id, scopes: ['read_user'] })).email).toBe('ada@example.com');
    expect(await accounts.getUser(user.id, { userId: user.id, scopes: [] })).not.toHaveProperty('email');
    expect(await accounts.getUser(user.id, { userId: '999', scopes: ['read_user'] })).not.toHaveProperty('email');
    await expect(accounts.getUser('999', { scopes: [] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a taken name or e-mail address regardless of case, pointing at the attribute', async () => {
    const { accounts, data } = memoryUsers();
    data.putUser('ada');

    await expect(accounts.register({ ...ada, name: 'ADA', email: 'other@example.com' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      details: [{ reason: 'conflict', pointer: '/data/attributes/name' }],
    });
    await expect(accounts.register({ ...ada, name: 'grace', email: 'Ada@Example.com' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      details: [{ reason: 'conflict', pointer: '/data/attributes/email' }],
    });
  });

  it('keeps the existing user when the demo seed registers a name again', async () => {
    const { accounts, data } = memoryUsers();
    const id = data.putUser('ada');
    expect((await accounts.ensureUser({ ...ada, name: 'ADA', email: 'new@example.com' })).id).toBe(id);
  });

  it('lets only the user themself change their profile; a taken e-mail is a conflict', async () => {
    const { accounts, data } = memoryUsers();
    const user = { id: data.putUser('ada') };
    data.putUser('grace');
    const self = { userId: user.id, scopes: ['read_user'] };

    await expect(accounts.updateProfile({ userId: '999', scopes: ['read_user'] }, user.id, { bio: 'hacked' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      details: [{ reason: 'forbidden' }],
    });
    await expect(accounts.updateProfile({ scopes: [] }, user.id, { bio: 'hacked' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(accounts.updateProfile(self, user.id, { email: 'GRACE@example.com' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      details: [{ pointer: '/data/attributes/email' }],
    });
    const updated = await accounts.updateProfile(self, user.id, { bio: '**Bold**', email: ' ada@new.example ' });
    expect(updated).toMatchObject({ bio: '**Bold**', email: 'ada@new.example' });
    expect(updated.bioHtml).toContain('<strong>Bold</strong>');
    expect(await accounts.updateProfile({ userId: user.id, scopes: [] }, user.id, { bio: 'quiet' })).not.toHaveProperty('email');
  });
});

describe('AccountService sign-in', () => {
  it('signs in by name or e-mail in any case; a wrong password and an unknown login are the same error', async () => {
    const { accounts, data } = memoryUsers();
    const user = { id: data.putUser('ada', ada.password) };

    expect((await accounts.authenticate(' ADA ', ada.password)).id).toBe(user.id);
    expect((await accounts.authenticate('ADA@example.COM', ada.password)).id).toBe(user.id);
    await expect(accounts.authenticate('ada', 'wrong password!')).rejects.toMatchObject(invalidCredentials);
    await expect(accounts.authenticate('nobody', ada.password)).rejects.toMatchObject(invalidCredentials);
  });

  it('refuses a locked login before checking the password, with the seconds to wait; an address that never tried is spared once', async () => {
    const { accounts, data } = memoryUsers();
    data.putUser('ada', ada.password);
    const now = new Date();
    data.throttles.set('login:ada', { attempts: 0, windowStartedAt: now, lockedUntil: new Date(now.getTime() + 90_000), lockouts: 1, updatedAt: now });
    await accounts.authenticate('ada', 'wrong password!', '10.0.0.1').catch(() => undefined);

    const locked = await accounts.authenticate('ada', ada.password, '10.0.0.1').catch((error: unknown) => error);
    expect(locked).toBeInstanceOf(SignInLockedError);
    expect(locked).toMatchObject({ code: 'RESOURCE_EXHAUSTED', details: [{ reason: 'rate_limited' }] });
    expect((locked as SignInLockedError).retryAfterSeconds).toBeGreaterThanOrEqual(89);
    expect((locked as SignInLockedError).retryAfterSeconds).toBeLessThanOrEqual(90);

    expect((await accounts.authenticate('ada', ada.password, '10.0.0.2')).name).toBe('ada');
    expect(data.throttles.get('login:ada')?.lockedUntil).toBeDefined();
  });

  it('clears the counters of a login and its account after a success', async () => {
    const { accounts, data } = memoryUsers();
    const userId = data.putUser('ada', ada.password);
    await expect(accounts.authenticate('ada', 'wrong password!', '10.0.0.1')).rejects.toMatchObject(invalidCredentials);
    expect(data.throttles.get('login:ada')?.attempts).toBe(1);
    expect(data.throttles.get(`user:${userId}`)?.attempts).toBe(1);

    await accounts.authenticate('ada', ada.password, '10.0.0.1');
    expect(data.throttles.has('login:ada')).toBe(false);
    expect(data.throttles.has(`user:${userId}`)).toBe(false);
  });
});
