import { describe, expect, it } from 'vitest';
import { apiDate, resourceDocument, resourceObject } from './document.builder.js';

describe('resourceObject', () => {
  it('has a string id, type, attributes and links.self, and no relationships member when there are none', () => {
    const resource = resourceObject('user', '7', { name: 'ada' }, { self: 'https://api.example/api/v1/users/7' });
    expect(resource).toEqual({ id: '7', type: 'user', attributes: { name: 'ada' }, links: { self: 'https://api.example/api/v1/users/7' } });
    expect(resourceObject('user', '7', {}, { relationships: {} })).not.toHaveProperty('relationships');
  });

  it('keeps relationships and leaves out links for types without a GET-by-id endpoint', () => {
    const resource = resourceObject('follow', '3', { date_followed: null }, { relationships: { followed: { data: { type: 'user', id: '2' } } } });
    expect(resource.relationships).toEqual({ followed: { data: { type: 'user', id: '2' } } });
    expect(resource).not.toHaveProperty('links');
  });
});

describe('resourceDocument', () => {
  const user = resourceObject('user', '1', {});

  it('is { data, links.self } without an empty included member', () => {
    expect(resourceDocument(user, 'https://api.example/api/v1/users/me')).toEqual({ data: user, links: { self: 'https://api.example/api/v1/users/me' } });
  });

  it('includes each related resource once', () => {
    const story = resourceObject('story', '9', {});
    const document = resourceDocument(user, 'self', [story, resourceObject('story', '9', { other: 1 }), resourceObject('user', '9', {})]);
    expect(document.included).toEqual([story, resourceObject('user', '9', {})]);
  });
});

describe('apiDate', () => {
  it('prints UTC with Z and no fraction for whole seconds', () => {
    expect(apiDate(new Date('2026-11-21T20:00:00+01:00'))).toBe('2026-11-21T19:00:00Z');
  });

  it('keeps milliseconds when there are some', () => {
    expect(apiDate(new Date(Date.UTC(2026, 10, 21, 19, 0, 0, 250)))).toBe('2026-11-21T19:00:00.250Z');
  });

  it('prints unset, invalid and epoch dates as null, never 1970', () => {
    expect(apiDate(undefined)).toBeNull();
    expect(apiDate(null)).toBeNull();
    expect(apiDate(new Date(Number.NaN))).toBeNull();
    expect(apiDate(new Date(0))).toBeNull();
  });
});
