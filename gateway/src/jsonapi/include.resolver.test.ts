import type { ResourceObject } from './document.builder.js';
import { describe, expect, it } from 'vitest';
import { CHAPTER_DOCUMENT, STORY_LIST, makeChapter, makeStory, makeTag, makeUser } from '../../test/fixtures/list-schemas.fixture.js';
import { ByteAllowance } from './byte-allowance.js';
import { resolveIncludes, type ResourceLoaders } from './include.resolver.js';
import { parseDocumentQuery, parseListQuery } from './list-query.parser.js';

/** In-memory loaders over fixed resources that record every batch they are asked for. */
function recordingLoaders(resources: ResourceObject[]): { loaders: ResourceLoaders; calls: [string, string[]][] } {
  const calls: [string, string[]][] = [];
  const loaderOf = (type: string) => async (ids: readonly string[]) => {
    calls.push([type, [...ids]]);
    return resources.filter((resource) => resource.type === type && ids.includes(resource.id));
  };
  return { loaders: { story: loaderOf('story'), user: loaderOf('user'), chapter: loaderOf('chapter'), tag: loaderOf('tag') }, calls };
}

const context = { caller: { requestId: 't', scopes: [] }, fields: new Map(), allowance: ByteAllowance.unlimited() };

describe('resolveIncludes', () => {
  it('loads each relationship in one batch for all parents, each resource once, in include order', async () => {
    const stories = [makeStory('1', '10', ['100', '101'], ['g:1']), makeStory('2', '10', ['102'], ['g:1', 'c:3']), makeStory('3', '11')];
    const { loaders, calls } = recordingLoaders([makeUser('10'), makeUser('11'), makeTag('g:1'), makeTag('c:3'), makeChapter('100', '1'), makeChapter('101', '1'), makeChapter('102', '2')]);
    const query = parseListQuery(STORY_LIST, new URLSearchParams('include=tags,author,chapters'));
    const included = await resolveIncludes(stories, query, loaders, context);
    expect(calls.sort()).toEqual([
      ['chapter', ['100', '101', '102']],
      ['tag', ['g:1', 'c:3']],
      ['user', ['10', '11']],
    ]);
    expect(included.map((resource) => `${resource.type}:${resource.id}`)).toEqual(['tag:g:1', 'tag:c:3', 'user:10', 'user:11', 'chapter:100', 'chapter:101', 'chapter:102']);
  });

  it('follows nested paths level by level: chapters → story → author', async () => {
    const chapters = [makeChapter('100', '1'), makeChapter('102', '2'), makeChapter('101', '1')];
    const { loaders, calls } = recordingLoaders([makeStory('1', '10'), makeStory('2', '10'), makeUser('10')]);
    const included = await resolveIncludes(chapters, parseDocumentQuery(CHAPTER_DOCUMENT, new URLSearchParams('include=story.author')), loaders, context);
    expect(calls).toEqual([
      ['story', ['1', '2']],
      ['user', ['10']],
    ]);
    expect(included.map((resource) => `${resource.type}:${resource.id}`)).toEqual(['story:1', 'story:2', 'user:10']);
  });

  it('never repeats primary data in included and skips resources the loader did not return', async () => {
    const stories = [makeStory('1', '10', ['100'])];
    const { loaders, calls } = recordingLoaders([makeChapter('100', '1')]);
    const chaptersBack = parseListQuery({ ...STORY_LIST, offeredIncludes: new Set(['chapters', 'chapters.story', 'author']) }, new URLSearchParams('include=chapters.story,author'));
    const included = await resolveIncludes(stories, chaptersBack, loaders, context);
    expect(included.map((resource) => `${resource.type}:${resource.id}`)).toEqual(['chapter:100']);
    expect(calls).toContainEqual(['user', ['10']]);
    expect(calls.some(([type]) => type === 'story')).toBe(false);
  });

  it('makes no call without include or without primary data', async () => {
    const { loaders, calls } = recordingLoaders([]);
    await resolveIncludes([makeStory('1', '10')], parseListQuery(STORY_LIST, new URLSearchParams('')), loaders, context);
    await resolveIncludes([], parseListQuery(STORY_LIST, new URLSearchParams('include=author')), loaders, context);
    expect(calls).toEqual([]);
  });
});
