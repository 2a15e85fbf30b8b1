import type { GenEnum } from '@bufbuild/protobuf/codegenv2';

/**
 * The API names of one proto enum and the way between them and the enum's numbers. An API name
 * is the proto value's name without the enum's shared prefix, in lower case, with `_` replaced
 * by the chosen separator: `STORY_STATUS_ON_HIATUS` → `on-hiatus`, `STORY_SORT_FIELD_NUM_WORDS`
 * → `num_words`. The zero value (`…_UNSPECIFIED`) has no API name: it means "not sent".
 */
export interface ProtoEnumNames<N extends string, E extends number> {
  /** The API names, in the order the API lists them (default: the proto's). */
  readonly names: readonly [N, ...N[]];
  /** The proto value of an API name; `undefined` (not sent) is the zero value (UNSPECIFIED). */
  toProto(name: N | undefined): E;
  /** The API name of a proto value; the zero value, or one this gateway does not know, is `null`. */
  fromProto(value: E): N | null;
}

/** Options of {@link protoEnumNames}. */
export interface ProtoEnumNamesOptions<N extends string> {
  /** What joins the words of a name: `_` (default) or `-`. */
  readonly separator?: '_' | '-';
  /**
   * The names the API offers, in its order, when it is not every value in proto order (e.g. a
   * sort whose documented order differs); each must name a value of the enum.
   */
  readonly names?: readonly [N, ...N[]];
}

/**
 * Derives the API names of a proto enum from its descriptor (see {@link ProtoEnumNames}). Throws
 * when a requested name has no value: a mismatch fails when the gateway starts, not per request.
 */
export function protoEnumNames<E extends number, const N extends string = string>(descriptor: GenEnum<E>, options: ProtoEnumNamesOptions<N> = {}): ProtoEnumNames<N, E> {
  const separator = options.separator ?? '_';
  const prefix = (descriptor.sharedPrefix ?? '').toUpperCase();
  const byName = new Map<string, E>();
  for (const value of descriptor.values) {
    if (value.number === 0) continue;
    const local = value.name.startsWith(prefix) ? value.name.slice(prefix.length) : value.name;
    byName.set(local.toLowerCase().replaceAll('_', separator), value.number as E);
  }
  const names = options.names ?? ([...byName.keys()] as [N, ...N[]]);
  for (const name of names) {
    if (!byName.has(name)) throw new Error(`${descriptor.typeName} has no value for the API name "${name}"`);
  }
  const byNumber = new Map<number, N>(names.map((name) => [byName.get(name) as number, name]));
  return {
    names,
    toProto(name) {
      if (name === undefined) return 0 as E;
      const value = byName.get(name);
      if (value === undefined) throw new Error(`${descriptor.typeName} has no value for the API name "${name}"`);
      return value;
    },
    fromProto: (value) => byNumber.get(value) ?? null,
  };
}
