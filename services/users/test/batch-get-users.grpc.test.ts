import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

let h: UsersHarness;
const ids: string[] = [];

beforeAll(async () => {
  h = await startUsersHarness('inkwell_test_users_batch');
  for (let i = 0; i < 3; i++) {
    const name = uniqueName('batch');
    const { user } = await h.client.registerUser({ name, email: `${name}@example.org`, password: 'a long enough password' }, as(undefined));
    ids.push(user!.id);
  }
});

afterAll(async () => {
  await h?.close();
});

describe('BatchGetUsers', () => {
  it('answers the users in the order asked, each once, leaving out unknown and malformed ids', async () => {
    const { users } = await h.client.batchGetUsers({ ids: [ids[2]!, '999999999', ids[0]!, ids[2]!] }, as(undefined));
    expect(users.map((user) => user.id)).toEqual([ids[2], ids[0]]);
    expect((await h.client.batchGetUsers({ ids: [] }, as(undefined))).users).toEqual([]);
  });

  it('shows the e-mail only on the caller own record with read_user, as GetUser does', async () => {
    const { users } = await h.client.batchGetUsers({ ids }, as(ids[1], ['read_user']));
    expect(users.map((user) => user.email !== undefined)).toEqual([false, true, false]);
    expect((await h.client.batchGetUsers({ ids }, as(ids[1]))).users.every((user) => user.email === undefined)).toBe(true);
  });
});
