import { getOption } from '@bufbuild/protobuf';
import { Scope as ScopeEnum, scope_description, ScopeSchema } from '@inkwell/proto/options';

/**
 * One OAuth scope name (docs/api/accounts.md, "Scopes"): a value of the proto enum
 * `inkwell.api.v1.Scope`, the owner of the list, without `SCOPE_` and in lower case.
 */
export type Scope = Exclude<Lowercase<keyof typeof ScopeEnum>, 'unspecified'>;

/**
 * The OAuth scopes, in the proto's order, each with the plain-words description the consent
 * page shows (the value's `(scope_description)` option).
 */
export const SCOPES: Readonly<Record<Scope, string>> = Object.freeze(
  Object.fromEntries(
    ScopeSchema.values
      .filter((value) => value.number !== ScopeEnum.UNSPECIFIED)
      .map((value) => [value.localName.toLowerCase(), getOption(value, scope_description)]),
  ) as Record<Scope, string>,
);

/** Every scope name, in the order of the contract. */
export const SCOPE_NAMES: readonly Scope[] = Object.freeze(Object.keys(SCOPES) as Scope[]);

/** True when `value` is one of the scopes of {@link SCOPES}. */
export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The result of {@link parseScopes}. */
export interface ParsedScopes {
  /** Known scopes, each once, in the order first given. */
  scopes: Scope[];
  /** Names that are not scopes, each once, in the order first given. */
  unknown: string[];
}

/**
 * Splits an OAuth `scope` parameter (RFC 6749 §3.3: names separated by spaces) into known and
 * unknown scopes. Any run of whitespace separates; duplicates are dropped; an empty or blank
 * string is no scopes at all. Deciding what to do with unknown names is the caller's job.
 */
export function parseScopes(value: string): ParsedScopes {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const name of value.split(/\s+/)) {
    if (name === '') continue;
    if (isScope(name)) {
      if (!scopes.includes(name)) scopes.push(name);
    } else if (!unknown.includes(name)) {
      unknown.push(name);
    }
  }
  return { scopes, unknown };
}
