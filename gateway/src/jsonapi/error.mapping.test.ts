import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, ERROR_CODE_TABLE, MAX_LISTED_ERRORS, toErrorResponse } from './error.mapping.js';

describe('toErrorResponse: the AppError code table', () => {
  const expected: Record<ErrorCode, [number, string]> = {
    INVALID_ARGUMENT: [400, 'invalid_parameter'],
    NOT_FOUND: [404, 'not_found'],
    ALREADY_EXISTS: [409, 'conflict'],
    PERMISSION_DENIED: [403, 'forbidden'],
    UNAUTHENTICATED: [401, 'invalid_token'],
    FAILED_PRECONDITION: [422, 'validation_failed'],
    ABORTED: [409, 'conflict'],
    OUT_OF_RANGE: [400, 'invalid_parameter'],
    RESOURCE_EXHAUSTED: [429, 'rate_limited'],
    UNIMPLEMENTED: [500, 'internal'],
    UNAVAILABLE: [503, 'unavailable'],
    DEADLINE_EXCEEDED: [503, 'unavailable'],
    CANCELLED: [500, 'internal'],
    INTERNAL: [500, 'internal'],
  };

  it('covers every ErrorCode', () => {
    expect(Object.keys(ERROR_CODE_TABLE).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  for (const [code, [status, apiCode]] of Object.entries(expected)) {
    it(`maps ${code} to ${status} ${apiCode}`, () => {
      const response = toErrorResponse(new AppError(code as ErrorCode, 'The story does not exist.'));
      expect(response.status).toBe(status);
      expect(response.document.errors).toHaveLength(1);
      expect(response.document.errors[0]).toMatchObject({ status: String(status), code: apiCode, title: API_ERROR_CODES[apiCode as keyof typeof API_ERROR_CODES].title });
    });
  }
});

describe('toErrorResponse: details', () => {
  it('sends the message of a client error as detail', () => {
    const response = toErrorResponse(AppError.notFound('story'));
    expect(response).toEqual({
      status: 404,
      log: undefined,
      document: { errors: [{ status: '404', code: 'not_found', title: 'Not found', detail: 'The story does not exist.', links: { about: '/docs/errors/not_found' } }] },
    });
  });

  it('turns INVALID_ARGUMENT with validation_failed into 422 with a pointer', () => {
    const response = toErrorResponse(AppError.validation('/data/attributes/title', 'title must not be empty'));
    expect(response.status).toBe(422);
    expect(response.document.errors).toEqual([
      { status: '422', code: 'validation_failed', title: 'Validation failed', detail: 'title must not be empty', source: { pointer: '/data/attributes/title' }, links: { about: '/docs/errors/validation_failed' } },
    ]);
  });

  it('lets a public reason override the code of its gRPC class, with its status and parameter source', () => {
    const error = new AppError(ErrorCode.INVALID_ARGUMENT, 'bad cursor', { details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }] });
    expect(toErrorResponse(error).document.errors[0]).toEqual({ status: '400', code: 'invalid_cursor', title: 'Invalid cursor', detail: 'bad cursor', source: { parameter: 'page[cursor]' }, links: { about: '/docs/errors/invalid_cursor' } });
    const scope = new AppError(ErrorCode.PERMISSION_DENIED, 'needs read_stories', { details: [{ reason: 'insufficient_scope' }] });
    expect(toErrorResponse(scope)).toMatchObject({ status: 403, document: { errors: [{ code: 'insufficient_scope' }] } });
  });

  it('keeps the class default for a reason that is not a public code', () => {
    const error = new AppError(ErrorCode.NOT_FOUND, 'gone', { details: [{ reason: 'row_missing_in_stories_table' }] });
    expect(toErrorResponse(error).document.errors[0]?.code).toBe('not_found');
  });

  it('answers one entry per detail, and 400 when their statuses differ', () => {
    const same = new AppError(ErrorCode.INVALID_ARGUMENT, 'invalid', {
      details: [
        { reason: 'validation_failed', pointer: '/data/attributes/title', detail: 'too long' },
        { reason: 'validation_failed', pointer: '/data/attributes/color', detail: 'not #rrggbb' },
      ],
    });
    expect(toErrorResponse(same).status).toBe(422);
    expect(toErrorResponse(same).document.errors.map((e) => e.detail)).toEqual(['too long', 'not #rrggbb']);
    const mixed = new AppError(ErrorCode.INVALID_ARGUMENT, 'invalid', { details: [{ reason: 'validation_failed' }, { reason: 'invalid_include' }] });
    expect(toErrorResponse(mixed).status).toBe(400);
  });

  it(`lists the first ${MAX_LISTED_ERRORS} errors and one more entry counting the rest, however many the request caused`, () => {
    const details = Array.from({ length: 20_000 }, (_, i) => ({ reason: 'validation_failed', pointer: `/data/attributes/a${i}`, detail: 'unknown attribute' }));
    const response = toErrorResponse(new AppError(ErrorCode.INVALID_ARGUMENT, 'invalid', { details }));
    expect(response.status).toBe(422);
    expect(response.document.errors).toHaveLength(MAX_LISTED_ERRORS + 1);
    expect(response.document.errors[MAX_LISTED_ERRORS - 1]!.source).toEqual({ pointer: `/data/attributes/a${MAX_LISTED_ERRORS - 1}` });
    const summary = response.document.errors[MAX_LISTED_ERRORS]!;
    expect(summary).toMatchObject({ status: '422', code: 'validation_failed' });
    expect(summary.detail).toContain(`${20_000 - MAX_LISTED_ERRORS} more errors`);
    expect(summary.source).toBeUndefined();
    expect(JSON.stringify(response.document).length).toBeLessThan(10_000);
  });
});

describe('toErrorResponse: server failures never leak', () => {
  it('answers unknown errors with a fixed 500 internal and asks for them to be logged', () => {
    const response = toErrorResponse(new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2'));
    expect(response.status).toBe(500);
    expect(response.log).toBe('error');
    expect(JSON.stringify(response.document)).not.toMatch(/ECONNREFUSED|hunter2/);
    expect(response.document.errors[0]?.code).toBe('internal');
  });

  it('ignores message and details of INTERNAL and UNAVAILABLE AppErrors', () => {
    const internal = new AppError(ErrorCode.INTERNAL, 'null pointer in stories.repository', { details: [{ reason: 'not_found', detail: 'secret' }] });
    expect(JSON.stringify(toErrorResponse(internal).document)).not.toMatch(/repository|secret/);
    expect(toErrorResponse(internal).status).toBe(500);
    const unavailable = new AppError(ErrorCode.UNAVAILABLE, 'connect ECONNREFUSED 127.0.0.1:50051');
    expect(toErrorResponse(unavailable)).toMatchObject({ status: 503, log: 'warn', document: { errors: [{ code: 'unavailable' }] } });
    expect(JSON.stringify(toErrorResponse(unavailable).document)).not.toContain('50051');
    // Refused while the backend is known to be down: the same answer, logged as an expected state.
    const knownDown = new AppError(ErrorCode.UNAVAILABLE, 'The users service is unavailable.', { expected: true });
    expect(toErrorResponse(knownDown)).toMatchObject({ status: 503, log: 'info', document: { errors: [{ code: 'unavailable' }] } });
    // Any expected state is one line at info, whatever its code; the answer stays a fixed 500.
    const expectedInternal = new AppError(ErrorCode.INTERNAL, 'the index is still being built', { expected: true });
    expect(toErrorResponse(expectedInternal)).toMatchObject({ status: 500, log: 'info', document: { errors: [{ code: 'internal' }] } });
  });

  it('does not let a reason turn a client error into a 5xx', () => {
    const error = new AppError(ErrorCode.NOT_FOUND, 'gone', { details: [{ reason: 'internal' }] });
    expect(toErrorResponse(error).status).toBe(404);
  });
});
