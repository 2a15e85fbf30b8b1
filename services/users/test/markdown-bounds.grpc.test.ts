import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { HOSTILE_MARKDOWN, MARKDOWN_REFUSAL_DETAIL, whileHostileMarkdownRenders } from '@inkwell/testing';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

describe('UsersService over gRPC: a bio that cannot be rendered within bounds (docs/api/foundation.md, "Markdown")', () => {
  let h: UsersHarness;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_markdown');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('refuses it at /data/attributes/bio, keeps the old bio, and answers another caller meanwhile', async () => {
    const writer = await h.services.accounts.register({ name: uniqueName('md'), email: `${uniqueName('md')}@example.org`, password: 'pw-123456789', bio: 'before' });
    const reader = await h.services.accounts.register({ name: uniqueName('md'), email: `${uniqueName('md')}@example.org`, password: 'pw-123456789' });

    const { error, result, order } = await whileHostileMarkdownRenders(
      () => h.client.updateUser({ id: writer.id, bio: HOSTILE_MARKDOWN }, as(writer.id, ['write_user'])),
      () => h.client.updateUser({ id: reader.id, bio: 'Still *here*' }, as(reader.id, ['write_user'])),
    );

    expect(error).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/bio', detail: expect.stringMatching(MARKDOWN_REFUSAL_DETAIL) }],
    });
    expect(result.user?.bioHtml).toBe('<p>Still <em>here</em></p>');
    expect(order).toEqual(['ordinary', 'hostile']);
    const { user } = await h.client.getUser({ id: writer.id }, as(undefined));
    expect(user).toMatchObject({ bio: 'before', bioHtml: '<p>before</p>' });
  });

  it('refuses it on registration too (the operator CLI and the seed register with a bio)', async () => {
    const name = uniqueName('md');
    await expect(h.services.accounts.register({ name, email: `${name}@example.org`, password: 'pw-123456789', bio: HOSTILE_MARKDOWN })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/bio' }],
    });
    await expect(h.services.accounts.findUser(name)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});
