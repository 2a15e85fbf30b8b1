import { DEFAULT_COLOR, DEFAULT_PRIVACY, type Privacy } from './bookshelf.js';

/** JSON:API pointers of what the service itself reports on (the rest is reported by the request's rules). */
export const POINTERS = {
  story: '/data/relationships/story',
} as const;

/** One problem the service finds with a write: where it is (a JSON:API pointer) and what is wrong. */
export interface Problem {
  pointer: string;
  detail: string;
}

/** A new shelf as submitted; absent members take their defaults. */
export interface NewShelfInput {
  name: string;
  description: string;
  privacy?: Privacy;
  color?: string;
  order?: number;
}

/** A new shelf as stored: name trimmed, colour lower case, defaults applied (order stays optional: "after the others"). */
export interface ValidShelf {
  name: string;
  description: string;
  privacy: Privacy;
  color: string;
  order?: number;
}

/** The members a PATCH sets; absent ones stay as they are. */
export interface ShelfChanges {
  name?: string;
  description?: string;
  privacy?: Privacy;
  color?: string;
  order?: number;
}

/**
 * A new shelf in stored form, with the defaults of docs/api/bookshelves.md. Its limits (a name
 * that is not blank, lengths, the colour's form) are the rules of CreateBookshelfRequest, checked
 * before the service runs.
 */
export function storedShelf(input: NewShelfInput): ValidShelf {
  const shelf: ValidShelf = {
    name: input.name.trim(),
    description: input.description,
    privacy: input.privacy ?? DEFAULT_PRIVACY,
    color: (input.color ?? DEFAULT_COLOR).toLowerCase(),
  };
  if (input.order !== undefined) shelf.order = input.order;
  return shelf;
}

/** The members a PATCH sets, in stored form as storedShelf puts them (UpdateBookshelfRequest's rules). */
export function storedChanges(changes: ShelfChanges): ShelfChanges {
  const stored: ShelfChanges = { ...changes };
  if (changes.name !== undefined) stored.name = changes.name.trim();
  if (changes.color !== undefined) stored.color = changes.color.toLowerCase();
  return stored;
}

/** True when a PATCH sets nothing. */
export function isEmptyChange(changes: ShelfChanges): boolean {
  return Object.values(changes).every((value) => value === undefined);
}
