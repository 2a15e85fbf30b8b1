import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Metadata } from '@inkwell/grpc';
import { ErrorCode } from '@inkwell/errors';
import { SIGN_IN_POLICY } from '../src/domain/sign-in-throttle.js';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

const PASSWORD = 'correct horse battery';

describe('accounts over gRPC', () => {
  let h: UsersHarness;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_accounts');
  });

  afterAll(async () => {
    await h?.close();
  });

  async function register(name = uniqueName('acc'), email = `${name}@example.org`) {
    const { user } = await h.client.registerUser({ name, email, password: PASSWORD }, as(undefined));
    return user!;
  }

  /**
   * Records all but the last 5 attempts the back-off allows on these counters straight in the
   * table (each real attempt costs a 100 ms scrypt), so a test then makes the last 5 for real.
   */
  async function spendAllButFive(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      await h.pool.query(
        `INSERT INTO sign_in_throttles (key, attempts, window_started_at) VALUES ($1, $2, now())
         ON CONFLICT (key) DO UPDATE SET attempts = EXCLUDED.attempts, window_started_at = now()`,
        [key, SIGN_IN_POLICY.maxAttempts - 5],
      );
    }
  }

  describe('RegisterUser', () => {
    it('creates the user with the e-mail and counts at zero, stores only a scrypt hash, and emits UserCreated', async () => {
      const name = uniqueName('Zoë.');
      const user = await register(name);
      expect(user).toMatchObject({ name, email: `${name}@example.org`, numFollowers: 0, numFollowing: 0, bio: '' });
      const { rows } = await h.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.id]);
      expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
      expect(rows[0]!.password_hash).not.toContain(PASSWORD);
      const events = await h.pool.query('SELECT type FROM outbox WHERE key = $1', [user.id]);
      expect(events.rows).toEqual([{ type: 'inkwell.users.v1.UserCreated' }]);
    });

    it('reports every invalid attribute at once with a pointer', async () => {
      const failure = h.client.registerUser({ name: 'no spaces allowed', email: 'not-an-address', password: 'short' }, as(undefined));
      await expect(failure).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [
          { reason: 'validation_failed', pointer: '/data/attributes/name' },
          { reason: 'validation_failed', pointer: '/data/attributes/email' },
          { reason: 'validation_failed', pointer: '/data/attributes/password' },
        ],
      });
      await expect(h.client.registerUser({ name: 'x'.repeat(65), email: 'a@b.org', password: PASSWORD }, as(undefined))).rejects.toMatchObject({
        details: [{ pointer: '/data/attributes/name' }],
      });
      await expect(h.client.registerUser({ name: '', email: 'a@b.org', password: PASSWORD }, as(undefined))).rejects.toMatchObject({
        details: [{ pointer: '/data/attributes/name' }],
      });
    });

    it('refuses a taken name or e-mail regardless of case, pointing at the attribute', async () => {
      const name = uniqueName('dup');
      await register(name, `${name}@example.org`);
      await expect(h.client.registerUser({ name: name.toUpperCase(), email: `${name}-2@example.org`, password: PASSWORD }, as(undefined))).rejects.toMatchObject({
        code: ErrorCode.ALREADY_EXISTS,
        details: [{ reason: 'conflict', pointer: '/data/attributes/name' }],
      });
      await expect(h.client.registerUser({ name: `${name}2`, email: `${name}@EXAMPLE.org`.toUpperCase(), password: PASSWORD }, as(undefined))).rejects.toMatchObject({
        code: ErrorCode.ALREADY_EXISTS,
        details: [{ reason: 'conflict', pointer: '/data/attributes/email' }],
      });
    });
  });

  describe('Authenticate', () => {
    it('signs in by name or e-mail (any case) with the right password', async () => {
      const user = await register();
      expect((await h.client.authenticate({ login: user.name.toUpperCase(), password: PASSWORD }, as(undefined))).user?.id).toBe(user.id);
      expect((await h.client.authenticate({ login: ` ${user.email!.toUpperCase()} `, password: PASSWORD }, as(undefined))).user).toMatchObject({ id: user.id, email: user.email });
    });

    it('answers a wrong password and an unknown login with the same error, in comparable time', async () => {
      const timed = async (login: string) => {
        const started = performance.now();
        const error: unknown = await h.client.authenticate({ login, password: 'wrong password!' }, as(undefined)).catch((caught: unknown) => caught);
        return { error, ms: performance.now() - started };
      };
      const wrong: number[] = [];
      const unknown: number[] = [];
      for (let sample = 0; sample < 5; sample++) {
        const user = await register();
        const outcomes = [await timed(user.name), await timed(uniqueName('nobody'))];
        for (const outcome of outcomes) {
          expect(outcome.error).toMatchObject({ code: ErrorCode.UNAUTHENTICATED, message: 'The name or e-mail address and password do not match.', details: [{ reason: 'invalid_credentials' }] });
        }
        wrong.push(outcomes[0]!.ms);
        unknown.push(outcomes[1]!.ms);
      }
      // Both pay one scrypt verification (tens of ms): an unknown login must not be answered markedly faster.
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.6);
      expect(median(unknown)).toBeGreaterThan(20);
    });

    it('locks a login after the backstop of failed attempts: even the right password is refused with a retry-after, for longer each time', async () => {
      const user = await register();
      const keys = [`login:${user.name.toLowerCase()}`, `user:${user.id}`];
      await spendAllButFive(keys);
      for (let attempt = 0; attempt < 5; attempt++) {
        await expect(h.client.authenticate({ login: user.name, password: `wrong-${attempt}-password` }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      let headers: Metadata | undefined;
      await expect(h.client.authenticate({ login: user.name, password: PASSWORD }, { ...as(undefined), onResponseHeaders: (metadata) => (headers = metadata) })).rejects.toMatchObject({
        code: ErrorCode.RESOURCE_EXHAUSTED,
        details: [{ reason: 'rate_limited' }],
      });
      expect(Number(headers?.get('retry-after')[0])).toBeGreaterThan(55);
      expect(Number(headers?.get('retry-after')[0])).toBeLessThanOrEqual(60);
      // The account is locked too: signing in by e-mail does not get around it.
      await expect(h.client.authenticate({ login: user.email!, password: PASSWORD }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });

      // Let the first lock run out (move it into the past) and fail 5 more times: the next lock is twice as long.
      await h.pool.query(`UPDATE sign_in_throttles SET locked_until = now() - interval '1 second' WHERE key = ANY($1)`, [keys]);
      await spendAllButFive(keys);
      for (let attempt = 0; attempt < 5; attempt++) {
        await expect(h.client.authenticate({ login: user.name, password: `again-${attempt}-wrong` }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      let second: Metadata | undefined;
      await expect(h.client.authenticate({ login: user.name, password: PASSWORD }, { ...as(undefined), onResponseHeaders: (metadata) => (second = metadata) })).rejects.toMatchObject({
        code: ErrorCode.RESOURCE_EXHAUSTED,
      });
      expect(Number(second?.get('retry-after')[0])).toBeGreaterThan(115);
    });

    it('counts concurrent attempts exactly: with 5 tries left, 10 parallel wrong passwords check at most 5 of them', async () => {
      const user = await register();
      await spendAllButFive([`login:${user.name.toLowerCase()}`, `user:${user.id}`]);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) => h.client.authenticate({ login: user.name, password: `parallel-${index}-wrong` }, as(undefined))),
      );
      const codes = outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { code: string }).code : 'OK'));
      expect(codes.filter((code) => code === ErrorCode.UNAUTHENTICATED)).toHaveLength(5);
      expect(codes.filter((code) => code === ErrorCode.RESOURCE_EXHAUSTED)).toHaveLength(5);
    });

    it('locks an unknown login too, and a success clears the counters', async () => {
      const ghost = uniqueName('ghost');
      await spendAllButFive([`login:${ghost.toLowerCase()}`]);
      for (let attempt = 0; attempt < 5; attempt++) {
        await expect(h.client.authenticate({ login: ghost, password: 'whatever-password' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      await expect(h.client.authenticate({ login: ghost, password: 'whatever-password' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });

      const user = await register();
      await spendAllButFive([`login:${user.name.toLowerCase()}`, `user:${user.id}`]);
      for (let attempt = 0; attempt < 4; attempt++) {
        await expect(h.client.authenticate({ login: user.name, password: 'nope nope nope' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      await h.client.authenticate({ login: user.name, password: PASSWORD }, as(undefined));
      for (let attempt = 0; attempt < 4; attempt++) {
        await expect(h.client.authenticate({ login: user.name, password: 'nope nope nope' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      expect((await h.client.authenticate({ login: user.name, password: PASSWORD }, as(undefined))).user?.id).toBe(user.id);
    });

    it('a lock spares addresses that have not tried the login: strangers failing from many addresses cannot refuse the owner elsewhere', async () => {
      const user = await register();
      await spendAllButFive([`login:${user.name.toLowerCase()}`, `user:${user.id}`]);
      const from = (clientAddress: string, password: string, login = user.name) => h.client.authenticate({ login, password, clientAddress }, as(undefined));
      const strangers = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5'];
      for (const address of strangers) await expect(from(address, 'wrong password!')).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      // Locked now: every address that took part is refused, even with the right password, and so is an attempt without an address.
      for (const address of strangers) await expect(from(address, PASSWORD)).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });
      await expect(h.client.authenticate({ login: user.name, password: PASSWORD }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });

      // The owner, from an address that has not tried this login, signs in, by name and then by e-mail.
      const home = '2001:db8:1:2::/64';
      expect((await from(home, PASSWORD)).user?.id).toBe(user.id);
      expect((await from(home, PASSWORD, user.email!)).user?.id).toBe(user.id);
      // That success does not lift the lock for the strangers.
      await expect(from(strangers[0]!, PASSWORD)).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });
      // A new address gets exactly one try while the lock holds, however many it sends at once.
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, index) => from('203.0.113.77', `parallel-${index}-wrong`)));
      const codes = outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { code: string }).code : 'OK'));
      expect(codes.filter((code) => code === ErrorCode.UNAUTHENTICATED)).toHaveLength(1);
      expect(codes.filter((code) => code === ErrorCode.RESOURCE_EXHAUSTED)).toHaveLength(4);
      await expect(from('203.0.113.77', PASSWORD)).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });
      await expect(from('x'.repeat(65), PASSWORD)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    });
  });

  describe('UpdateUser', () => {
    it('changes the caller’s own bio and e-mail, renders the bio, emits UserUpdated, and shows the e-mail only with read_user', async () => {
      const user = await register();
      const newEmail = `${uniqueName('new')}@example.org`;
      const { user: updated } = await h.client.updateUser({ id: user.id, bio: 'I write **bold** things', email: newEmail }, as(user.id, ['write_user', 'read_user']));
      expect(updated).toMatchObject({ bio: 'I write **bold** things', bioHtml: '<p>I write <strong>bold</strong> things</p>', email: newEmail });
      const withoutRead = await h.client.updateUser({ id: user.id, bio: 'plain' }, as(user.id, ['write_user']));
      expect(withoutRead.user?.email).toBeUndefined();
      expect(withoutRead.user?.bio).toBe('plain');
      const events = await h.pool.query<{ type: string }>('SELECT type FROM outbox WHERE key = $1 ORDER BY id', [user.id]);
      expect(events.rows.map((row) => row.type)).toEqual(['inkwell.users.v1.UserCreated', 'inkwell.users.v1.UserUpdated', 'inkwell.users.v1.UserUpdated']);
      expect((await h.client.authenticate({ login: newEmail, password: PASSWORD }, as(undefined))).user?.id).toBe(user.id);
    });

    it('refuses anyone but the user themself', async () => {
      const user = await register();
      const other = await register();
      await expect(h.client.updateUser({ id: user.id, bio: 'hacked' }, as(other.id, ['write_user']))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        details: [{ reason: 'forbidden' }],
      });
      // An app acting alone has no account to change (the gateway refuses it first); a user needs write_user.
      await expect(h.client.updateUser({ id: user.id, bio: 'hacked' }, as(undefined, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
      await expect(h.client.updateUser({ id: user.id, bio: 'hacked' }, as(user.id))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'write_user' }] });
      expect((await h.client.getUser({ id: user.id }, as(undefined))).user?.bio).toBe('');
    });

    it('validates the e-mail and refuses one that is taken', async () => {
      const user = await register();
      const other = await register();
      await expect(h.client.updateUser({ id: user.id, email: 'broken' }, as(user.id, ['write_user']))).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [{ reason: 'validation_failed', pointer: '/data/attributes/email' }],
      });
      await expect(h.client.updateUser({ id: user.id, email: other.email!.toUpperCase() }, as(user.id, ['write_user']))).rejects.toMatchObject({
        code: ErrorCode.ALREADY_EXISTS,
        details: [{ pointer: '/data/attributes/email' }],
      });
    });
  });
});
