import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { constraintName, translatePgError } from './pg-error.js';

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
