import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { constraintName, translatePgError, withPgErrors } from './pg-error.js';

function socketError(code: string): Error {
  return Object.assign(new Error(`write ${code}`), { code });
}

describe('translatePgError', () => {
  it('treats socket errors as UNAVAILABLE even when their code looks like a SQLSTATE', () => {
    expect(translatePgError(socketError('EPIPE')).code).toBe(ErrorCode.UNAVAILABLE);
    expect(translatePgError(socketError('ECONNRESET')).code).toBe(ErrorCode.UNAVAILABLE);
    expect(translatePgError(new Error('Connection terminated unexpectedly')).code).toBe(ErrorCode.UNAVAILABLE);
  });

  it('passes an AppError through unchanged', () => {
    const original = AppError.notFound('story');
    expect(translatePgError(original)).toBe(original);
  });

  it('makes anything else INTERNAL and keeps it as the cause', () => {
    const bug = new TypeError('x is undefined');
    const translated = translatePgError(bug);
    expect(translated.code).toBe(ErrorCode.INTERNAL);
    expect(translated.cause).toBe(bug);
    expect(constraintName(translated)).toBeUndefined();
  });
});

describe('withPgErrors', () => {
  it('returns what the work returns', async () => {
    await expect(withPgErrors(async () => 42)).resolves.toBe(42);
  });

  it('turns a driver error into an AppError and lets an AppError through', async () => {
    const unique = Object.assign(new Error('duplicate key value'), { code: '23505', severity: 'ERROR', constraint: 'users_name_key' });
    const translated = await withPgErrors(() => Promise.reject(unique)).catch((error: unknown) => error);
    expect(translated).toBeInstanceOf(AppError);
    expect((translated as AppError).code).toBe(ErrorCode.ALREADY_EXISTS);
    expect(constraintName(translated)).toBe('users_name_key');
    const own = new AppError(ErrorCode.NOT_FOUND, 'No such shelf.');
    await expect(withPgErrors(() => Promise.reject(own))).rejects.toBe(own);
  });
});
