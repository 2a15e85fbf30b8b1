import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import { byteLength, characterLength, isEntityId, LIMITS } from '../domain/story.js';
import { isTagId } from '../domain/tag.js';

/**
 * Collects the validation problems of one request body, so a client learns about all of them at
 * once (one JSON:API error per problem, each with its pointer).
 */
export class Problems {
  private readonly details: ErrorDetail[] = [];

  /** Records a problem with the attribute or relationship at `pointer`. */
  add(pointer: string, detail: string): void {
    this.details.push({ reason: 'validation_failed', pointer, detail });
  }

  /** Throws INVALID_ARGUMENT `validation_failed` with every problem, if there is any. */
  throwIfAny(): void {
    if (this.details.length === 0) return;
    throw new AppError(ErrorCode.INVALID_ARGUMENT, this.details.map((d) => d.detail).join(' '), { details: this.details });
  }
}

/** A title: required, non-empty after trimming, at most 200 characters. Returns it trimmed. */
export function checkTitle(problems: Problems, title: string, pointer = '/data/attributes/title'): string {
  const trimmed = title.trim();
  if (trimmed === '') problems.add(pointer, 'A title is required.');
  else if (characterLength(trimmed) > LIMITS.title) problems.add(pointer, `A title has at most ${LIMITS.title} characters.`);
  return trimmed;
}

/** A short description: at most 300 characters. */
export function checkShortDescription(problems: Problems, text: string): string {
  if (characterLength(text) > LIMITS.shortDescription) {
    problems.add('/data/attributes/short_description', `A short description has at most ${LIMITS.shortDescription} characters.`);
  }
  return text;
}

/** Any other text (Markdown): at most 1 MiB of UTF-8. */
export function checkText(problems: Problems, text: string, attribute: string): string {
  if (byteLength(text) > LIMITS.textBytes) problems.add(`/data/attributes/${attribute}`, `${attribute} is at most 1 MiB.`);
  return text;
}

/** The most tags one story may carry. */
export const MAX_TAGS_PER_STORY = 100;

/**
 * Checks the form of a story's tag ids (`c:<n>`/`g:<n>`, at most 100, no duplicates after
 * removing them) and returns them without duplicates; existence is checked by the caller.
 */
export function checkTagIds(problems: Problems, ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  const malformed = unique.filter((id) => !isTagId(id));
  if (malformed.length > 0) problems.add('/data/relationships/tags', `Not a tag id: ${malformed.slice(0, 5).join(', ')} (tags are c:<n> or g:<n>).`);
  if (unique.length > MAX_TAGS_PER_STORY) problems.add('/data/relationships/tags', `A story has at most ${MAX_TAGS_PER_STORY} tags.`);
  return unique;
}

/** The most ids a batch get or an ids filter takes. */
export const MAX_BATCH_IDS = 1000;

/** Ids of a batch get: at most 1000; malformed ones can match nothing and are dropped. */
export function batchIds(ids: readonly string[], isId: (id: string) => boolean = isEntityId): string[] {
  if (ids.length > MAX_BATCH_IDS) throw new AppError(ErrorCode.INVALID_ARGUMENT, `At most ${MAX_BATCH_IDS} ids per batch.`);
  return [...new Set(ids)].filter(isId);
}
