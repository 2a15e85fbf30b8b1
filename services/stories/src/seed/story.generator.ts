import { wilsonRating } from '../domain/rating.js';
import { hotnessFromTotals } from '../domain/hotness.js';
import type { Chapter } from '../domain/chapter.js';
import type { ContentRating, Story, StoryStatus } from '../domain/story.js';
import { ADJECTIVES, FEELINGS, NOUNS, PLACES, TIMES, VERBS } from './vocabulary.js';
import { escapeHtml, prng, Zipf } from '@inkwell/datagen';

/** A tag as the generator needs it. */
export interface SeedTag {
  id: string;
  name: string;
  kind: 'character' | 'genre';
}

/** One generated chapter, ready to load: a chapter of the domain with numeric ids and its text. */
export interface GeneratedChapter extends Omit<Chapter, 'id' | 'storyId' | 'content' | 'contentHtml'> {
  id: number;
  storyId: number;
  content: string;
  contentHtml: string;
  /** The modelled length of the chapter (its stored content is an abbreviation of it). */
  numWords: number;
}

/** One generated story with its chapters; counts, rating and hotness are consistent. */
export interface GeneratedStory extends Omit<Story, 'id' | 'chapterIds'> {
  id: number;
  chapters: GeneratedChapter[];
}

/** What to generate. */
export interface GeneratorOptions {
  /** Published stories to generate. */
  published: number;
  /** Drafts to generate besides (never-published stories of the same authors). */
  drafts: number;
  firstStoryId: number;
  firstChapterId: number;
  /** Author user ids; earlier ones write more (Zipf-like). */
  authors: readonly string[];
  tags: readonly SeedTag[];
  /** Stories are published over the `years` before `now`, more of them recently. */
  now: Date;
  years?: number;
  /** Same seed, same data. */
  seed?: number;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Paragraphs of plain text (with `*emphasis*` only) → the HTML that @inkwell/markdown renders for
 * them, without running the renderer a million times (a unit test checks the two agree).
 */
export function paragraphsToHtml(paragraphs: readonly string[]): string {
  return paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\*([^*]+)\*/g, '<em>$1</em>')}</p>`).join('\n');
}

const SENTENCES = [
  '{C} has one {N} left to {V}, and {T} it will be too late.',
  'When the {A} {N} arrives in {P}, {C} must choose between {F} and {F}.',
  'Nobody in {P} remembers the {A} {N}, except {C}.',
  '{C} never meant to {V} the {N}.',
  'A story of {F}, {F} and one {A} {N}.',
  'It begins with a {N} and ends with a {N}.',
  '{T}, {C} will {V} the {A} {N} or lose everything.',
  '{C} and {D} were never supposed to meet again.',
  'What if the {N} of {P} could {V} its own {N}?',
  'Told in letters, diary entries and one *{A} {N}*.',
  '{C} learns that {F} is a {A} thing.',
  'There is a {A} {N} under {P}, and {C} means to {V} it.',
  'Everyone in {P} knows about the {N}; nobody knows about the {N}.',
  'Set in {P} {T}.',
  'The {N} was only the beginning.',
  '{D} keeps a {A} {N} in the {N}, and {C} wants to know why.',
  'Part {R} of the *{A} {N}* series.',
  'A {A} tale of {F} for anyone who ever had to {V} a {N}.',
];

const TITLES = [
  'The {A} {N}',
  '{N} of {P}',
  'A {N} for {C}',
  "{C}'s {A} {N}",
  '{A} {N}s',
  'The {N} and the {N}',
  '{F} in {P}',
  'Of {F} and {N}s',
  'The {A} {N} of {P}',
  'What the {N} Knew',
];

const STATUSES: readonly [StoryStatus, number][] = [['complete', 0.42], ['incomplete', 0.43], ['on-hiatus', 0.1], ['cancelled', 0.05]];
const RATINGS: readonly [ContentRating, number][] = [['everyone', 0.55], ['teen', 0.35], ['mature', 0.1]];

/**
 * Generates realistic stories lazily (one at a time, so a million never sit in memory): authors
 * with very different output, tag mixes of a few genres and related characters, lengths and
 * chapter counts from heavy-tailed distributions, dates over the last years (more recent ones
 * more often), and view/like/dislike/comment counts that grow with quality and age, with rating
 * and hotness computed by the domain functions. Published stories come first, then the drafts.
 * Chapter content is a short abbreviation; `numWords` carries the modelled length.
 */
export function* generateStories(options: GeneratorOptions): Generator<GeneratedStory> {
  const random = prng(options.seed ?? 20261121);
  const between = (min: number, max: number) => min + random() * (max - min);
  const int = (min: number, max: number) => Math.floor(between(min, max + 1));
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const logNormal = (median: number, sigma: number) => median * Math.exp(sigma * normal());
  const weighted = <T>(choices: readonly [T, number][]): T => {
    let u = random();
    for (const [value, weight] of choices) if ((u -= weight) <= 0) return value;
    return choices[choices.length - 1]![0];
  };

  const characters = options.tags.filter((tag) => tag.kind === 'character');
  const genres = options.tags.filter((tag) => tag.kind === 'genre');
  const authorZipf = new Zipf(options.authors.length, 0.6);
  const characterZipf = new Zipf(characters.length, 0.9);
  const genreZipf = new Zipf(genres.length, 0.8);
  const words = { A: new Zipf(ADJECTIVES.length, 1), N: new Zipf(NOUNS.length, 1), V: new Zipf(VERBS.length, 0.8), F: new Zipf(FEELINGS.length, 0.9) };
  const years = options.years ?? 6;
  const now = options.now.getTime();
  let chapterId = options.firstChapterId;

  const fill = (template: string, cast: readonly string[]) =>
    template.replace(/\{([ACDFNPRTV])\}/g, (_, slot: string) => {
      switch (slot) {
        case 'A':
          return ADJECTIVES[words.A.pick(random)]!;
        case 'N':
          return NOUNS[words.N.pick(random)]!;
        case 'V':
          return VERBS[words.V.pick(random)]!;
        case 'F':
          return FEELINGS[words.F.pick(random)]!;
        case 'P':
          return PLACES[int(0, PLACES.length - 1)]!;
        case 'T':
          return TIMES[int(0, TIMES.length - 1)]!;
        case 'R':
          return String(int(2, 5));
        case 'C':
          return cast[0] ?? 'a stranger';
        default:
          return cast[1] ?? `the ${NOUNS[words.N.pick(random)]!}`;
      }
    });
  const sentence = (cast: readonly string[]) => {
    const text = fill(SENTENCES[int(0, SENTENCES.length - 1)]!, cast);
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  const titleCase = (text: string) => text.replace(/(^|\s)([a-z])/g, (_, space: string, letter: string) => space + letter.toUpperCase());

  const total = options.published + options.drafts;
  for (let index = 0; index < total; index++) {
    const published = index < options.published;
    const id = options.firstStoryId + index;

    const tagIds = new Set<string>();
    const cast: string[] = [];
    const genreCount = weighted([[1, 0.35], [2, 0.45], [3, 0.2]] as [number, number][]);
    for (let g = 0; g < genreCount; g++) tagIds.add(genres[genreZipf.pick(random)]!.id);
    if (characters.length > 0 && random() < 0.75) {
      // Characters of one work sit next to each other in the catalogue: pick one, then neighbours.
      const first = characterZipf.pick(random);
      const count = weighted([[1, 0.4], [2, 0.35], [3, 0.18], [4, 0.07]] as [number, number][]);
      for (let c = 0; c < count; c++) {
        const at = Math.min(characters.length - 1, Math.max(0, first + (c === 0 ? 0 : int(-4, 4))));
        const character = characters[at]!;
        if (!tagIds.has(character.id)) cast.push(character.name);
        tagIds.add(character.id);
      }
    }

    const title = titleCase(fill(TITLES[int(0, TITLES.length - 1)]!, cast)).slice(0, 200);
    const shortDescription = sentence(cast).slice(0, 300);
    const paragraphs = [Array.from({ length: int(2, 4) }, () => sentence(cast)).join(' ')];
    if (random() < 0.5) paragraphs.push(Array.from({ length: int(1, 3) }, () => sentence(cast)).join(' '));
    if (random() < 0.2) paragraphs.push(random() < 0.5 ? '*Updated every Sunday.*' : 'Cover art by the author.');

    const age = years * 365 * DAY * (1 - random() ** 0.6);
    const firstPublished = new Date(now - age);
    const totalWords = Math.round(Math.min(600_000, Math.max(250, logNormal(5000, 1.1))));
    const chapterCount = Math.max(1, Math.min(80, Math.round(totalWords / logNormal(3500, 0.5))));
    const span = Math.min(age * 0.8, chapterCount * between(3, 20) * DAY);

    const chapters: GeneratedChapter[] = [];
    let remaining = totalWords;
    for (let n = 1; n <= chapterCount; n++) {
      const numWords = n === chapterCount ? Math.max(1, remaining) : Math.max(1, Math.round(remaining / (chapterCount - n + 1) * between(0.6, 1.4)));
      remaining = Math.max(0, remaining - numWords);
      const at = new Date(firstPublished.getTime() + (chapterCount === 1 ? 0 : (span * (n - 1)) / (chapterCount - 1)));
      const chapterPublished = published && (n < chapterCount || chapterCount === 1 || random() > 0.05);
      const content = [sentence(cast), sentence(cast)];
      const authorsNote = random() < 0.15 ? `Thank you for reading! ${sentence(cast)}` : '';
      chapters.push({
        id: chapterId++,
        storyId: id,
        chapterNumber: n,
        title: random() < 0.4 ? `Chapter ${n}` : titleCase(fill(random() < 0.5 ? 'The {A} {N}' : '{N} and {N}', cast)),
        content: content.join('\n\n'),
        contentHtml: paragraphsToHtml(content),
        authorsNote,
        authorsNoteHtml: authorsNote ? paragraphsToHtml([authorsNote]) : '',
        published: chapterPublished,
        numWords,
        numViews: 0,
        datePublished: chapterPublished ? at : null,
        dateModified: new Date(at.getTime() + between(0, 2) * DAY),
      });
    }
    const publishedChapters = chapters.filter((chapter) => chapter.published);
    const lastChapter = publishedChapters.at(-1) ?? chapters.at(-1)!;
    const dateUpdated = published ? lastChapter.datePublished : null;
    const dateModified = new Date(Math.min(now, lastChapter.dateModified.getTime() + between(0, 3) * DAY));

    let numViews = 0;
    let numLikes = 0;
    let numDislikes = 0;
    let numComments = 0;
    let rating: number | null = null;
    let hotness = 0;
    if (published) {
      const quality = logNormal(1, 0.9);
      const ageDays = age / DAY;
      numViews = Math.min(5_000_000, Math.round(quality * 40 * (1 + Math.log1p(ageDays)) * logNormal(1, 1)));
      numLikes = Math.round(numViews * Math.min(0.25, 0.03 * quality) * between(0.5, 1.5));
      numDislikes = Math.round(numLikes * between(0.02, 0.4) / quality);
      numComments = Math.round(numViews * 0.005 * between(0, 2));
      rating = wilsonRating(numLikes, numDislikes);
      const lastActivity = new Date(dateModified.getTime() + (now - dateModified.getTime()) * random() ** 3);
      hotness = hotnessFromTotals({ datePublished: firstPublished, lastActivity, views: numViews, likes: numLikes, comments: numComments });
      // Spread the story's views over its chapters, the first ones read most.
      let left = numViews;
      for (const chapter of publishedChapters) {
        chapter.numViews = Math.round(left * 0.7);
        left -= chapter.numViews;
      }
    }

    yield {
      id,
      authorId: options.authors[authorZipf.pick(random)]!,
      title,
      shortDescription,
      description: paragraphs.join('\n\n'),
      descriptionHtml: paragraphsToHtml(paragraphs),
      status: weighted(STATUSES),
      contentRating: weighted(RATINGS),
      published,
      tagIds: [...tagIds],
      numWords: publishedChapters.reduce((sum, chapter) => sum + chapter.numWords, 0),
      numChapters: publishedChapters.length,
      numViews,
      numLikes,
      numDislikes,
      numComments,
      rating,
      hotness,
      datePublished: published ? firstPublished : null,
      dateModified,
      dateUpdated,
      chapters,
    };
  }
}
