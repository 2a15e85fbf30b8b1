import { create } from '@bufbuild/protobuf';
import { messageRefusal } from '@inkwell/grpc';
import { RegisterUserRequestSchema, UpdateUserRequestSchema } from '@inkwell/proto/users';
import { describe, expect, it } from 'vitest';

const PASSWORD = 'correct horse battery';

/** The pointers RegisterUser refuses `init` at (empty: valid). */
function registrationProblems(init: { name?: string; email?: string; password?: string }): (string | undefined)[] {
  const request = create(RegisterUserRequestSchema, { name: 'ada', email: 'a@b.org', password: PASSWORD, ...init });
  return messageRefusal(RegisterUserRequestSchema, request)?.details.map((detail) => detail.pointer) ?? [];
}

describe('the account rules of users_service.proto', () => {
  it('accepts names of letters and digits of any script, _, - and ., 1 to 64 characters', () => {
    for (const name of ['ada', 'brontë', 'bronte\u0308', 'Zoë.K_2-x', '李白', 'a', 'x'.repeat(64)]) expect(registrationProblems({ name }), name).toEqual([]);
    for (const name of ['', 'x'.repeat(65), 'two words', 'at@sign', 'semi;colon', '<script>', 'tab\t']) expect(registrationProblems({ name }), name).toEqual(['/data/attributes/name']);
  });

  it('accepts plausible e-mail addresses only, after trimming', () => {
    for (const email of ['a@b.org', 'first.last+tag@sub.example.co.uk', ' a@b.org ']) expect(registrationProblems({ email }), email).toEqual([]);
    for (const email of ['', ' ', 'plain', 'a@b', 'a@@b.org', 'a b@c.org', 'a\u00a0b@c.org', '@b.org', 'a@.org', `${'x'.repeat(250)}@b.org`]) {
      expect(registrationProblems({ email }), email).toEqual(['/data/attributes/email']);
    }
  });

  it('wants passwords of 10 to 1024 characters, counted as characters not bytes', () => {
    expect(registrationProblems({ password: '123456789' })).toEqual(['/data/attributes/password']);
    expect(registrationProblems({ password: '1234567890' })).toEqual([]);
    expect(registrationProblems({ password: 'ééééééééé' })).toEqual(['/data/attributes/password']);
    expect(registrationProblems({ password: 'x'.repeat(1025) })).toEqual(['/data/attributes/password']);
  });

  it('says what is wrong in the words of sign-up', () => {
    const refused = messageRefusal(RegisterUserRequestSchema, create(RegisterUserRequestSchema, { name: 'x'.repeat(65), email: '', password: 'short' }));
    expect(refused?.details.map((detail) => detail.detail)).toEqual(['A name has at most 64 characters.', 'An e-mail address is required.', 'A password has at least 10 characters.']);
  });

  it('limits a bio to 1 MiB of UTF-8 and checks a changed e-mail address like a new one', () => {
    const update = (init: { bio?: string; email?: string }) => messageRefusal(UpdateUserRequestSchema, create(UpdateUserRequestSchema, { id: '1', ...init }))?.details ?? [];
    expect(update({ bio: 'x'.repeat(1024 * 1024) })).toEqual([]);
    expect(update({ bio: 'é'.repeat(512 * 1024 + 1) })).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/bio', detail: 'A bio is at most 1 MiB long.' }]);
    expect(update({})).toEqual([]);
    expect(update({ email: 'broken' })).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/email', detail: 'This is not a valid e-mail address.' }]);
  });
});
