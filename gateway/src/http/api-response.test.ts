import { AppError } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { insufficientScopeChallenge } from './api-response.js';

describe('insufficientScopeChallenge', () => {
  it('names the needed scope of an insufficient_scope error', () => {
    expect(insufficientScopeChallenge(AppError.insufficientScope('write_user'))).toBe('Bearer realm="inkwell", error="insufficient_scope", scope="write_user"');
  });

  it('leaves a malformed scope out rather than breaking the header', () => {
    const error = AppError.insufficientScope('bad"scope');
    expect(insufficientScopeChallenge(error)).toBe('Bearer realm="inkwell", error="insufficient_scope"');
  });

  it('is undefined for other 403s and non-AppErrors', () => {
    expect(insufficientScopeChallenge(AppError.forbidden('not yours'))).toBeUndefined();
    expect(insufficientScopeChallenge(new Error('x'))).toBeUndefined();
  });
});
