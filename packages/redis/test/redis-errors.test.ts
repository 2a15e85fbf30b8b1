import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { withRedisErrors } from '../src/index.js';

describe('withRedisErrors', () => {
  it('answers what the command answers', async () => {
    await expect(withRedisErrors('cursor store', async () => 'OK')).resolves.toBe('OK');
  });

  it('turns a client failure into UNAVAILABLE naming the store, keeping the cause', async () => {
    const cause = new Error('Connection is closed.');
    const failed = await withRedisErrors('cursor store', () => Promise.reject(cause)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({ code: ErrorCode.UNAVAILABLE, message: 'The cursor store is unavailable.', cause });
  });

  it('lets an AppError of the store itself through unchanged', async () => {
    const refused = AppError.badParameter('page[after]', 'unknown cursor', 'invalid_cursor');
    await expect(withRedisErrors('cursor store', () => Promise.reject(refused))).rejects.toBe(refused);
  });
});
