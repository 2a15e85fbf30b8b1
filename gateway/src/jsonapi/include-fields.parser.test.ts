import { describe, expect, it } from 'vitest';
import { CHAPTER, STORY, TAG, USER } from '../../test/fixtures/list-schemas.fixture.js';
import { compileIncludePaths, parseFieldset, parseInclude } from './include-fields.parser.js';
import { schemaMap } from './resource-schema.js';

const schemas = schemaMap([STORY, USER, CHAPTER, TAG]);

describe('include', () => {
  it('offers every prefix of a declared path', () => {
    expect([...compileIncludePaths(CHAPTER, ['story.author'], schemas)]).toEqual(['story', 'story.author']);
  });

  it('builds one tree node per relationship, merging shared prefixes', () => {
    const offered = compileIncludePaths(STORY, ['author', 'chapters.story.author'], schemas);
    const tree = parseInclude('chapters.story,chapters,author,chapters.story.author', offered);
    expect([...tree.keys()]).toEqual(['chapters', 'author']);
    expect([...(tree.get('chapters')?.get('story')?.keys() ?? [])]).toEqual(['author']);
  });

  it('names the offered paths when a path is not offered', () => {
    expect(() => parseInclude('tags', compileIncludePaths(STORY, ['author'], schemas))).toThrow(/Paths offered here: author/);
    expect(() => parseInclude('author', new Set())).toThrow(/no relationships to include/);
  });
});

describe('fields', () => {
  it('accepts attributes, heavy attributes and relationships', () => {
    expect(parseFieldset('chapter', 'content,story', schemas)).toEqual(new Set(['content', 'story']));
  });

  it('rejects unknown names and types', () => {
    expect(() => parseFieldset('chapter', 'title,body', schemas)).toThrow(/"body" is not a field of chapter/);
    expect(() => parseFieldset('bookshelf', 'name', schemas)).toThrow(/no resources of type "bookshelf"/);
  });
});
