import { describe, expect, it } from 'vitest';
import { CHAPTER, STORY, makeChapter, makeStory } from '../../test/fixtures/list-schemas.fixture.js';
import { narrowResource, wantsField } from './sparse-fieldsets.js';

const chapter = makeChapter('5', '1', 'Once upon a time');

describe('narrowResource', () => {
  it('leaves heavy attributes out unless fields[type] names them', () => {
    const narrowed = narrowResource(chapter, CHAPTER, new Map());
    expect(narrowed.attributes).toEqual({ title: 'chapter 5', chapter_number: 1 });
    expect(narrowed.relationships).toEqual(chapter.relationships);
    expect(narrowed.links).toEqual(chapter.links);
  });

  it('returns exactly the named attributes and relationships, heavy ones included', () => {
    const narrowed = narrowResource(chapter, CHAPTER, new Map([['chapter', new Set(['content', 'title'])]]));
    expect(narrowed.attributes).toEqual({ title: 'chapter 5', content: 'Once upon a time' });
    expect(narrowed).not.toHaveProperty('relationships');
  });

  it('narrows relationships and keeps an empty attributes object for an empty fieldset', () => {
    const story = makeStory('1', '2', ['5'], ['g:1']);
    const narrowed = narrowResource(story, STORY, new Map([['story', new Set(['author'])]]));
    expect(narrowed.attributes).toEqual({});
    expect(Object.keys(narrowed.relationships ?? {})).toEqual(['author']);
    expect(narrowResource(story, STORY, new Map([['story', new Set()]]))).toEqual({ id: '1', type: 'story', attributes: {}, links: story.links });
  });

  it('leaves types without a fieldset and without heavy attributes untouched', () => {
    const story = makeStory('1', '2');
    expect(narrowResource(story, STORY, new Map([['chapter', new Set(['title'])]]))).toBe(story);
  });
});

describe('wantsField', () => {
  it('asks for heavy fields only when named', () => {
    expect(wantsField(new Map(), CHAPTER, 'content')).toBe(false);
    expect(wantsField(new Map(), CHAPTER, 'title')).toBe(true);
    expect(wantsField(new Map([['chapter', new Set(['content_html'])]]), CHAPTER, 'content_html')).toBe(true);
    expect(wantsField(new Map([['chapter', new Set(['content_html'])]]), CHAPTER, 'title')).toBe(false);
  });
});
