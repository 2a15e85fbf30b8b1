import { DEFAULT_COLOR, DEFAULT_PRIVACY, MAX_DESCRIPTION_BYTES, MAX_NAME_LENGTH, type Privacy } from './bookshelf.js';

/** JSON:API pointers of the writable members of a bookshelf and a bookshelf item. */
export const POINTERS = {
  name: '/data/attributes/name',
  description: '/data/attributes/description',
  privacy: '/data/attributes/privacy',
  color: '/data/attributes/color',
  order: '/data/attributes/order',
  story: '/data/relationships/story',
} as const;

/** One validation problem: where it is (a JSON:API pointer) and what is wrong. */
export interface Problem {
  pointer: string;
  detail: string;
}

/** A validation outcome: the value, or every problem found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** A new shelf as submitted; absent members take their defaults. */
export interface NewShelfInput {
  name: string;
  description: string;
  privacy?: Privacy;
  color?: string;
  order?: number;
}

/** A new shelf after validation: name trimmed, colour lower case, defaults applied (order stays optional: "after the others"). */
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

const COLOR = /^#[0-9a-fA-F]{6}$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Validates a new shelf (docs/api/bookshelves.md: name required; lengths; colour format). */
export function validateNewShelf(input: NewShelfInput): Validated<ValidShelf> {
  const problems: Problem[] = [];
  const value: ValidShelf = {
    name: checkName(input.name, problems),
    description: checkDescription(input.description, problems),
    privacy: input.privacy ?? DEFAULT_PRIVACY,
    color: input.color === undefined ? DEFAULT_COLOR : checkColor(input.color, problems),
  };
  if (input.order !== undefined) value.order = checkOrder(input.order, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/** Validates the members a PATCH sets, with the same rules as on create. */
export function validateShelfChanges(changes: ShelfChanges): Validated<ShelfChanges> {
  const problems: Problem[] = [];
  const value: ShelfChanges = {};
  if (changes.name !== undefined) value.name = checkName(changes.name, problems);
  if (changes.description !== undefined) value.description = checkDescription(changes.description, problems);
  if (changes.privacy !== undefined) value.privacy = changes.privacy;
  if (changes.color !== undefined) value.color = checkColor(changes.color, problems);
  if (changes.order !== undefined) value.order = checkOrder(changes.order, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/** True when a PATCH sets nothing. */
export function isEmptyChange(changes: ShelfChanges): boolean {
  return Object.values(changes).every((value) => value === undefined);
}

function checkName(raw: string, problems: Problem[]): string {
  const name = raw.trim();
  if (name === '') problems.push({ pointer: POINTERS.name, detail: 'A bookshelf needs a name.' });
  else if ([...name].length > MAX_NAME_LENGTH) problems.push({ pointer: POINTERS.name, detail: `The name is longer than ${MAX_NAME_LENGTH} characters.` });
  return name;
}

function checkDescription(description: string, problems: Problem[]): string {
  if (Buffer.byteLength(description, 'utf8') > MAX_DESCRIPTION_BYTES) {
    problems.push({ pointer: POINTERS.description, detail: `The description is larger than ${MAX_DESCRIPTION_BYTES} bytes (1 MiB) of UTF-8.` });
  }
  return description;
}

function checkColor(color: string, problems: Problem[]): string {
  if (!COLOR.test(color)) problems.push({ pointer: POINTERS.color, detail: 'The color must be written #rrggbb (six hexadecimal digits).' });
  return color.toLowerCase();
}

function checkOrder(order: number, problems: Problem[]): number {
  if (!Number.isInteger(order) || order < INT32_MIN || order > INT32_MAX) problems.push({ pointer: POINTERS.order, detail: 'The order must be a 32-bit integer.' });
  return order;
}
