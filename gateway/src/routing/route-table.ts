import { INT64_MAX } from '../jsonapi/proto-rules.js';
import { CLIENT_ID_PATTERN, type ParamKind, type RouteDefinition } from './route.types.js';

/** A route of the table with what the dispatcher needs precomputed. */
export interface CompiledRoute {
  readonly definition: RouteDefinition;
  /** Full pattern (`/api/v1/users/:id`): the label for logs and metrics. */
  readonly pattern: string;
  /** Parameter names in path order. */
  readonly paramNames: readonly string[];
  /** Parameter kinds in path order. */
  readonly paramKinds: readonly ParamKind[];
}

/** The outcome of matching a method and a path against the table. */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: CompiledRoute; readonly values: readonly string[] }
  | { readonly kind: 'method_not_allowed'; readonly allow: string; readonly pattern: string }
  | { readonly kind: 'not_found' };

interface Node {
  readonly literals: Map<string, Node>;
  param: { readonly name: string; readonly kind: ParamKind; readonly node: Node } | undefined;
  readonly methods: Map<string, CompiledRoute>;
  allow: string;
  pattern: string;
}

const NOT_FOUND: RouteMatch = { kind: 'not_found' };
const ME = 'me';
/** The largest id as text, and its length: ids are positive int64 (the ID_PATTERN of proto-rules, checked here without a regex). */
const MAX_ID = String(INT64_MAX);
const MAX_ID_DIGITS = MAX_ID.length;

/**
 * The routes of the API in a prefix tree, built once at startup. Literal segments win over
 * parameters (`/users/me/x` before `/users/:id/x`), with backtracking, so declaration order
 * does not matter. A path that exists with other methods is `method_not_allowed` with the
 * `Allow` value (methods in declaration order); a path that does not exist, or whose parameter
 * does not fit its kind (`/users/abc`), is `not_found`. One trailing slash is ignored; matching
 * is case-sensitive and on the raw (undecoded) path.
 */
export class RouteTable {
  readonly #prefix: string;
  readonly #root: Node = newNode();

  /**
   * Compiles `routes` under `prefix` (e.g. `/api/v1`). Throws on a malformed path, a duplicate
   * method and path, or two routes naming the same position differently (`/stories/:id` and
   * `/stories/:story_id/...`): one name and kind per position keeps the table unambiguous.
   */
  constructor(prefix: string, routes: readonly RouteDefinition[]) {
    this.#prefix = prefix;
    for (const route of routes) this.#add(route);
  }

  /** Matches `path` (no query string) for `method`. */
  match(method: string, path: string): RouteMatch {
    const prefix = this.#prefix;
    if (!path.startsWith(prefix)) return NOT_FOUND;
    let rest = path.length === prefix.length ? '/' : path.slice(prefix.length);
    if (rest.charCodeAt(0) !== 47 /* / */) return NOT_FOUND;
    if (rest.length > 1 && rest.endsWith('/')) rest = rest.slice(0, -1);
    const segments = rest === '/' ? [] : rest.slice(1).split('/');
    const values: string[] = [];
    const node = walk(this.#root, segments, 0, values);
    if (node === undefined) return NOT_FOUND;
    const route = node.methods.get(method);
    if (route !== undefined) return { kind: 'found', route, values };
    return { kind: 'method_not_allowed', allow: node.allow, pattern: node.pattern };
  }

  #add(definition: RouteDefinition): void {
    const { method, path } = definition;
    if (!/^(\/[A-Za-z0-9_.~:-]+)+$/.test(path)) throw new Error(`route path ${path} is malformed`);
    const kinds = (definition.params ?? {}) as Record<string, ParamKind | undefined>;
    const paramNames: string[] = [];
    const paramKinds: ParamKind[] = [];
    let node = this.#root;
    for (const segment of path.slice(1).split('/')) {
      if (!segment.startsWith(':')) {
        let next = node.literals.get(segment);
        if (next === undefined) node.literals.set(segment, (next = newNode()));
        node = next;
        continue;
      }
      const name = segment.slice(1);
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`route ${path}: parameter name ${name} is malformed`);
      if (paramNames.includes(name)) throw new Error(`route ${path}: parameter ${name} appears twice`);
      const kind = kinds[name] ?? 'id';
      if (node.param === undefined) node.param = { name, kind, node: newNode() };
      else if (node.param.name !== name || node.param.kind !== kind) {
        throw new Error(`route ${path}: :${name} (${kind}) clashes with :${node.param.name} (${node.param.kind}) declared at the same position`);
      }
      paramNames.push(name);
      paramKinds.push(kind);
      node = node.param.node;
    }
    for (const name of Object.keys(kinds)) {
      if (!paramNames.includes(name)) throw new Error(`route ${path}: params names ${name}, which the path lacks`);
    }
    if (node.methods.has(method)) throw new Error(`route ${method} ${path} is declared twice`);
    node.methods.set(method, { definition, pattern: this.#prefix + path, paramNames, paramKinds });
    node.allow = [...node.methods.keys()].join(', ');
    node.pattern = this.#prefix + path;
  }
}

function newNode(): Node {
  return { literals: new Map(), param: undefined, methods: new Map(), allow: '', pattern: '' };
}

/** Depth-first: literal child first, then the parameter child; pushes parameter values as it descends. */
function walk(node: Node, segments: readonly string[], index: number, values: string[]): Node | undefined {
  if (index === segments.length) return node.methods.size > 0 ? node : undefined;
  const segment = segments[index] as string;
  const literal = node.literals.get(segment);
  if (literal !== undefined) {
    const found = walk(literal, segments, index + 1, values);
    if (found !== undefined) return found;
  }
  const param = node.param;
  if (param === undefined || !fitsKind(segment, param.kind)) return undefined;
  values.push(segment);
  const found = walk(param.node, segments, index + 1, values);
  if (found === undefined) values.pop();
  return found;
}

/** Whether a raw path segment is a valid value of a parameter kind. */
export function fitsKind(segment: string, kind: ParamKind): boolean {
  if (kind === 'client') return CLIENT_ID_PATTERN.test(segment);
  if (kind === 'user' && segment === ME) return true;
  return isStorageId(segment);
}

/** A positive int64 in canonical decimal form (no sign, no leading zeros): `isId` of proto-rules, without a regex or BigInt on the routing path. */
export function isStorageId(segment: string): boolean {
  const length = segment.length;
  if (length === 0 || length > MAX_ID_DIGITS) return false;
  if (segment.charCodeAt(0) === 48 /* 0 */) return false;
  for (let i = 0; i < length; i++) {
    const c = segment.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return length < MAX_ID_DIGITS || segment <= MAX_ID;
}

/** Whether a parameter value is the `me` alias (only possible for `user` parameters). */
export function isMe(value: string): boolean {
  return value === ME;
}

