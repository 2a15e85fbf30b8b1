import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '@inkwell/markdown';
import { wilsonRating } from '../domain/rating.js';
import { countWords } from '../domain/chapter.js';
import { generateStories, type GeneratorOptions, type SeedTag } from './story.generator.js';

const tags: SeedTag[] = [
  { id: 'c:1', name: 'Elizabeth Bennet', kind: 'character' },
  { id: 'c:2', name: "d'Artagnan", kind: 'character' },
  { id: 'c:3', name: 'Mr. Bennet', kind: 'character' },
  { id: 'g:1', name: 'Adventure', kind: 'genre' },
  { id: 'g:2', name: 'Romance', kind: 'genre' },
];
const options: GeneratorOptions = { published: 300, drafts: 20, firstStoryId: 1, firstChapterId: 1, authors: ['7', '8', '9'], tags, now: new Date('2026-11-21T00:00:00Z') };

describe('generateStories', () => {
  const stories = [...generateStories(options)];

  it('is deterministic for a seed', () => {
    expect([...generateStories(options)].map((story) => story.title)).toEqual(stories.map((story) => story.title));
  });

  it('keeps every derived value consistent with the chapters and counts', () => {
    for (const story of stories) {
      const published = story.chapters.filter((chapter) => chapter.published);
      expect(story.numChapters).toBe(published.length);
      expect(story.numWords).toBe(published.reduce((sum, chapter) => sum + chapter.numWords, 0));
      expect(story.rating).toBe(wilsonRating(story.numLikes, story.numDislikes));
      expect(story.chapters.map((chapter) => chapter.chapterNumber)).toEqual(story.chapters.map((_, i) => i + 1));
      if (story.published) {
        expect(published.length).toBeGreaterThan(0);
        expect(story.datePublished!.getTime()).toBeLessThanOrEqual(story.dateModified.getTime());
      } else {
        expect(published).toEqual([]);
        expect(story.datePublished).toBeNull();
      }
      expect(story.title.length).toBeGreaterThan(0);
      expect(story.tagIds.every((id) => tags.some((tag) => tag.id === id))).toBe(true);
    }
    expect(stories.filter((story) => !story.published)).toHaveLength(20);
  });

  it('renders HTML exactly as the Markdown renderer would', async () => {
    const render = (source: string) => renderMarkdown(source, { pointer: '/data/attributes/content' });
    for (const story of stories.slice(0, 50)) {
      expect(story.descriptionHtml).toBe(await render(story.description));
      for (const chapter of story.chapters.slice(0, 2)) {
        expect(chapter.contentHtml).toBe(await render(chapter.content));
        expect(chapter.authorsNoteHtml).toBe(await render(chapter.authorsNote));
        expect(countWords(chapter.content)).toBeGreaterThan(0);
      }
    }
  });

  it('varies lengths, counts and dates realistically', () => {
    const words = stories.map((story) => story.numWords).filter((n) => n > 0).sort((a, b) => a - b);
    expect(words[0]!).toBeLessThan(2000);
    expect(words.at(-1)!).toBeGreaterThan(15000);
    expect(new Set(stories.map((story) => story.status)).size).toBe(4);
    expect(stories.some((story) => story.rating === null && story.published)).toBe(true);
    const years = new Set(stories.filter((s) => s.datePublished).map((story) => story.datePublished!.getUTCFullYear()));
    expect(years.size).toBeGreaterThanOrEqual(4);
  });
});
