import { BLOG_POST_MAX_TAGS, BLOG_TAG_MAX_CHARS, normaliseBlogTag } from '@inkwell/limits';
/** Longest title in characters (docs/api/blog.md, "The blog_post resource"). */
export const MAX_TITLE_LENGTH = 200;
/** Largest content in bytes of UTF-8 (docs/api/blog.md, "The blog_post resource": at most 1 MiB). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
/** Most distinct tags on one post (shared with the gateway's API document). */
export const MAX_TAGS = BLOG_POST_MAX_TAGS;
/** Longest tag (and site-post tag) in characters, after normalisation (shared with the gateway's API document). */
export const MAX_TAG_LENGTH = BLOG_TAG_MAX_CHARS;
/** Most stories one post may be tagged with. */
export const MAX_STORIES = 25;

/** JSON:API pointers of the writable members of a blog post. */
export const POINTERS = {
  title: '/data/attributes/title',
  content: '/data/attributes/content',
  tags: '/data/attributes/tags',
  stories: '/data/relationships/stories',
} as const;

/** One validation problem: where it is (a JSON:API pointer) and what is wrong. */
export interface Problem {
  pointer: string;
  detail: string;
}

/** A user post as submitted (before normalisation). */
export interface NewPostInput {
  title: string;
  content: string;
  tags: readonly string[];
  storyIds: readonly string[];
}

/** A user post after validation: title trimmed, tags normalised and deduplicated, stories deduplicated. */
export interface ValidPost {
  title: string;
  content: string;
  tags: string[];
  storyIds: string[];
}

/** The fields a PATCH sets; absent ones stay as they are. */
export interface PostChanges {
  title?: string;
  content?: string;
  tags?: readonly string[];
  storyIds?: readonly string[];
}

/** PostChanges after validation. */
export type ValidChanges = Partial<ValidPost>;

/** A validation outcome: the value, or every problem found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/**
 * Normalises a tag: trimmed, runs of whitespace collapsed to one space, lower case (so `Drabble`,
 * ` drabble ` and `DRABBLE` are one tag, and `filter[tags]` matches whatever case it is sent in).
 */
export const normaliseTag: (tag: string) => string = normaliseBlogTag;

/** Validates a new user post (docs/api/blog.md, "The blog_post resource": title and content required; lengths). */
export function validateNewPost(input: NewPostInput): Validated<ValidPost> {
  const problems: Problem[] = [];
  const title = checkTitle(input.title, problems);
  const content = checkContent(input.content, problems);
  const tags = checkTags(input.tags, problems);
  const storyIds = checkStories(input.storyIds, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { title, content, tags, storyIds } };
}

/** Validates the fields a PATCH sets, with the same rules as on create. */
export function validateChanges(changes: PostChanges): Validated<ValidChanges> {
  const problems: Problem[] = [];
  const value: ValidChanges = {};
  if (changes.title !== undefined) value.title = checkTitle(changes.title, problems);
  if (changes.content !== undefined) value.content = checkContent(changes.content, problems);
  if (changes.tags !== undefined) value.tags = checkTags(changes.tags, problems);
  if (changes.storyIds !== undefined) value.storyIds = checkStories(changes.storyIds, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/**
 * Validates an operator's site-post tag: normalised like tags; blank means none. Returns the tag,
 * or a problem text.
 */
export function validateSitePostTag(tag: string | undefined): { ok: true; value: string | undefined } | { ok: false; detail: string } {
  if (tag === undefined) return { ok: true, value: undefined };
  const normalised = normaliseTag(tag);
  if (normalised === '') return { ok: true, value: undefined };
  const problem = tagProblem(normalised);
  return problem === undefined ? { ok: true, value: normalised } : { ok: false, detail: `The site post tag ${problem}.` };
}

function checkTitle(raw: string, problems: Problem[]): string {
  const title = raw.trim();
  if (title === '') problems.push({ pointer: POINTERS.title, detail: 'A blog post needs a title.' });
  else if (charLength(title) > MAX_TITLE_LENGTH) problems.push({ pointer: POINTERS.title, detail: `The title is longer than ${MAX_TITLE_LENGTH} characters.` });
  return title;
}

function checkContent(content: string, problems: Problem[]): string {
  if (content.trim() === '') problems.push({ pointer: POINTERS.content, detail: 'A blog post needs content.' });
  else if (utf8LongerThan(content, MAX_CONTENT_BYTES)) problems.push({ pointer: POINTERS.content, detail: `The content is larger than ${MAX_CONTENT_BYTES} bytes (1 MiB) of UTF-8.` });
  return content;
}

function checkTags(raw: readonly string[], problems: Problem[]): string[] {
  const tags: string[] = [];
  for (const [index, tag] of raw.entries()) {
    const normalised = normaliseTag(tag);
    const problem = tagProblem(normalised);
    if (problem !== undefined) {
      problems.push({ pointer: `${POINTERS.tags}/${index}`, detail: `The tag ${problem}.` });
      continue;
    }
    if (!tags.includes(normalised)) tags.push(normalised);
  }
  if (tags.length > MAX_TAGS) problems.push({ pointer: POINTERS.tags, detail: `A blog post has at most ${MAX_TAGS} tags.` });
  return tags;
}

/** What is wrong with a normalised tag (blank, a comma, too long), as the end of a sentence; undefined when it is fine. */
export function tagProblem(normalised: string): string | undefined {
  if (normalised === '') return 'is blank';
  if (normalised.includes(',')) return 'contains a comma (commas separate tags in filter[tags])';
  if (charLength(normalised) > MAX_TAG_LENGTH) return `is longer than ${MAX_TAG_LENGTH} characters`;
  return undefined;
}

function checkStories(raw: readonly string[], problems: Problem[]): string[] {
  const storyIds = [...new Set(raw)];
  if (storyIds.length > MAX_STORIES) problems.push({ pointer: POINTERS.stories, detail: `A blog post can be tagged with at most ${MAX_STORIES} stories.` });
  return storyIds;
}

function charLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

const encoder = new TextEncoder();

function utf8LongerThan(text: string, limit: number): boolean {
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair 4): most content needs no encoding.
  if (text.length * 3 <= limit) return false;
  return encoder.encode(text).length > limit;
}
