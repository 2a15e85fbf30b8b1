import { BLOG_POST_MAX_TAGS, BLOG_TAG_MAX_CHARS, normaliseBlogTag } from '@inkwell/limits';

/** Most distinct tags on one post (shared with the gateway's API document). */
export const MAX_TAGS = BLOG_POST_MAX_TAGS;
/** Longest tag (and site-post tag) in characters, after normalisation (shared with the gateway's API document). */
export const MAX_TAG_LENGTH = BLOG_TAG_MAX_CHARS;

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

/**
 * Validates a new user post and puts it in stored form (docs/api/blog.md, "The blog_post
 * resource"): the title trimmed, tags normalised, checked and deduplicated, stories deduplicated.
 * The limits of title, content and stories are the rules of CreateBlogPostRequest, checked before
 * the service runs; the tag rules apply to normalised tags, so they are checked here.
 */
export function validateNewPost(input: NewPostInput): Validated<ValidPost> {
  const problems: Problem[] = [];
  const tags = checkTags(input.tags, problems);
  const value = { title: input.title.trim(), content: input.content, tags, storyIds: distinct(input.storyIds) };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/** Validates the fields a PATCH sets, as validateNewPost does. */
export function validateChanges(changes: PostChanges): Validated<ValidChanges> {
  const problems: Problem[] = [];
  const value: ValidChanges = {};
  if (changes.title !== undefined) value.title = changes.title.trim();
  if (changes.content !== undefined) value.content = changes.content;
  if (changes.tags !== undefined) value.tags = checkTags(changes.tags, problems);
  if (changes.storyIds !== undefined) value.storyIds = distinct(changes.storyIds);
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

function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function charLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}
