import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import { createLogger, createRecordingLogger } from '@inkwell/logging';
import { describe, expect, it } from 'vitest';
import { appErrorToGrpcStatus, decodeDetails, encodeDetails, ERROR_DETAILS_KEY, grpcErrorToAppError } from './errors.js';

const logger = createLogger('grpc-test', { level: 'silent' });

function serviceError(code: status, details: string, metadata = new Metadata()): ServiceError {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata });
}

describe('error mapping table', () => {
  it.each(Object.values(ErrorCode))('maps %s to the gRPC status of the same name and back', (code) => {
    const details: ErrorDetail[] = [{ reason: 'some_reason', pointer: '/data/attributes/title', parameter: 'filter[x]', detail: 'Bad.' }];
    const sent = appErrorToGrpcStatus(new AppError(code, `message for ${code}`, { details }), logger);

    expect(status[sent.code]).toBe(code);
    expect(sent.details).toBe(`message for ${code}`);

    const back = grpcErrorToAppError(serviceError(sent.code, sent.details, sent.metadata));
    expect(back).toBeInstanceOf(AppError);
    expect(back.code).toBe(code);
    expect(back.message).toBe(`message for ${code}`);
    expect(back.details).toEqual(details);
  });

  it('sends a non-AppError as INTERNAL "internal error" without its text, and logs the cause', () => {
    const { logger: recording, lines } = createRecordingLogger('grpc-test');
    const sent = appErrorToGrpcStatus(new Error('password=hunter2 at db.internal:5432'), recording);

    expect(sent.code).toBe(status.INTERNAL);
    expect(sent.details).toBe('internal error');
    expect(JSON.stringify(sent.metadata.toJSON())).not.toContain('hunter2');
    expect(lines.map((line) => `${line.level} ${line.msg}: ${(line.fields.err as Error).message}`)).toEqual(['error internal error in gRPC handler: password=hunter2 at db.internal:5432']);
  });

  it('maps statuses without an ErrorCode (UNKNOWN, DATA_LOSS) to INTERNAL', () => {
    expect(grpcErrorToAppError(serviceError(status.UNKNOWN, 'x')).code).toBe(ErrorCode.INTERNAL);
    expect(grpcErrorToAppError(serviceError(status.DATA_LOSS, 'x')).code).toBe(ErrorCode.INTERNAL);
  });

  it('gives errors that did not come from our server a neutral message and keeps the original as cause', () => {
    const original = serviceError(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 10.0.0.5:50051');
    const mapped = grpcErrorToAppError(original);

    expect(mapped.code).toBe(ErrorCode.UNAVAILABLE);
    expect(mapped.message).toBe('The service is unavailable.');
    expect(mapped.message).not.toContain('10.0.0.5');
    expect(mapped.cause).toBe(original);
    expect(mapped.details).toEqual([]);
  });

  it('never passes off an answer over the receive limit as the caller\'s rate limit: a local RESOURCE_EXHAUSTED is INTERNAL', () => {
    const local = grpcErrorToAppError(serviceError(status.RESOURCE_EXHAUSTED, 'Received message larger than max (40000000 vs. 33554432)'));
    expect(local.code).toBe(ErrorCode.INTERNAL);
    expect(local.message).not.toContain('33554432');

    const metadata = new Metadata();
    metadata.set(ERROR_DETAILS_KEY, '[]');
    expect(grpcErrorToAppError(serviceError(status.RESOURCE_EXHAUSTED, 'Slow down.', metadata)).code).toBe(ErrorCode.RESOURCE_EXHAUSTED);
  });
});

describe('error details trailer', () => {
  it('is printable ASCII even for non-ASCII text and decodes to the same details', () => {
    const details: ErrorDetail[] = [{ reason: 'validation_failed', detail: 'Titel darf nicht leer sein — 题目 🙂' }];
    const json = encodeDetails(details);

    expect(json).toMatch(/^[ -~]*$/);
    expect(decodeDetails(json)).toEqual(details);
    expect(() => new Metadata().set(ERROR_DETAILS_KEY, json)).not.toThrow();
  });

  it('sends only the four known string fields', () => {
    const sneaky = { reason: 'r', detail: 'd', stack: 'at secret.ts:1', pointer: 5 } as unknown as ErrorDetail;

    expect(JSON.parse(encodeDetails([sneaky]))).toEqual([{ reason: 'r', detail: 'd' }]);
  });

  it('carries a retry hint of whole seconds between 1 and a day, and nothing else in its place', () => {
    const hinted: ErrorDetail = { reason: 'rate_limited', detail: 'Wait.', retryAfterSeconds: 2 };

    expect(decodeDetails(encodeDetails([hinted]))).toEqual([hinted]);
    for (const bad of [0, -1, 1.5, '2', 86_401]) {
      expect(decodeDetails(JSON.stringify([{ reason: 'rate_limited', retryAfterSeconds: bad }]))).toEqual([{ reason: 'rate_limited' }]);
    }
  });

  it('drops details from the end rather than exceed the metadata size', () => {
    const details = Array.from({ length: 200 }, (_, i) => ({ reason: 'validation_failed', detail: `problem number ${i} `.repeat(3) }));
    const decoded = decodeDetails(encodeDetails(details));

    expect(encodeDetails(details).length).toBeLessThanOrEqual(4096);
    expect(decoded.length).toBeGreaterThan(10);
    expect(decoded).toEqual(details.slice(0, decoded.length));
  });

  it.each([
    ['not json', '{oops'],
    ['an object', '{"reason":"x"}'],
    ['a string', '"hello"'],
    ['null', 'null'],
  ])('ignores garbage (%s)', (_label, raw) => {
    expect(decodeDetails(raw)).toEqual([]);
  });

  it('keeps the valid entries of a partly broken array and drops non-string fields', () => {
    expect(decodeDetails('[1, null, {"reason": 3, "detail": "ok"}, ["x"], {"pointer": "/a"}]')).toEqual([{ detail: 'ok' }, { pointer: '/a' }]);
  });

  it('keeps message and details of our server even when the details trailer is garbage', () => {
    const metadata = new Metadata();
    metadata.set(ERROR_DETAILS_KEY, 'garbage');
    const mapped = grpcErrorToAppError(serviceError(status.NOT_FOUND, 'The story does not exist.', metadata));

    expect(mapped.code).toBe(ErrorCode.NOT_FOUND);
    expect(mapped.message).toBe('The story does not exist.');
    expect(mapped.details).toEqual([]);
  });
});
