import { describe, expect, it } from 'vitest';
import { isAcceptedRequestMediaType, parseMediaType } from './media-type.js';

describe('isAcceptedRequestMediaType', () => {
  it.each([
    'application/vnd.api+json',
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset="UTF-8"',
    'application/vnd.api+json; profile="https://example.com/profile"',
  ])('accepts %s', (header) => {
    expect(isAcceptedRequestMediaType(header)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
    'application/vnd.api+json; charset=utf-8',
    'application/vnd.api+json; version=1.1',
    'application/vnd.api+json; profile="https://example.com/profile"; q=1',
    'application/json; broken',
    'application/jsonx',
  ])('rejects %s', (header) => {
    expect(isAcceptedRequestMediaType(header)).toBe(false);
  });
});

describe('parseMediaType', () => {
  it('lower-cases the essence and parameter names and unquotes values', () => {
    const parsed = parseMediaType('Application/Vnd.Api+JSON; Profile="a b"');
    expect(parsed?.essence).toBe('application/vnd.api+json');
    expect(parsed?.parameters.get('profile')).toBe('a b');
  });
});
