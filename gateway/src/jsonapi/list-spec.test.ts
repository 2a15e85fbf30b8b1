import { describe, expect, it } from 'vitest';
import { CHAPTER, STORY, USER } from '../../test/fixtures/list-schemas.fixture.js';
import { defineDocumentSpec, defineListSpec } from './list-spec.js';
import { defineResourceSchema } from './resource-schema.js';

const pagination = { kind: 'cursor', defaultSize: 20, maxSize: 100 } as const;

describe('spec checks at startup', () => {
  it('rejects include paths through unknown relationships or to unlisted types', () => {
    expect(() => defineDocumentSpec({ resource: CHAPTER, types: [STORY], includes: ['story.comments'] })).toThrow(/no relationship comments/);
    expect(() => defineDocumentSpec({ resource: CHAPTER, types: [STORY], includes: ['story.author'] })).toThrow(/type user is not among/);
    expect(() => defineDocumentSpec({ resource: CHAPTER, types: [STORY, USER], includes: ['story.author'] })).not.toThrow();
  });

  it('rejects a default sort or relevance field that is not a sort field, relevance without search, and bad page sizes', () => {
    expect(() => defineListSpec({ resource: USER, filters: {}, sort: { fields: ['name'], default: '-date' as 'name' }, pagination })).toThrow(/default sort/);
    expect(() => defineListSpec({ resource: USER, filters: {}, sort: { fields: ['name'], default: 'name', relevance: 'relevance' as 'name' }, pagination })).toThrow(/relevance field/);
    expect(() => defineListSpec({ resource: USER, filters: {}, sort: { fields: ['name', 'relevance'], default: 'name', relevance: 'relevance' }, pagination })).toThrow(/needs search/);
    expect(() => defineListSpec({ resource: USER, filters: {}, pagination: { kind: 'cursor', defaultSize: 200, maxSize: 100 } })).toThrow(/page sizes/);
  });

  it('rejects schemas with heavy attributes that are not attributes or names used twice', () => {
    expect(() => defineResourceSchema({ type: 'x', attributes: ['a'], heavyAttributes: ['b'] })).toThrow(/heavy attribute b/);
    expect(() => defineResourceSchema({ type: 'x', attributes: ['a'], relationships: { a: { type: 'y', many: false } } })).toThrow(/both an attribute and a relationship/);
  });
});
