import { getOption, hasOption, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import type { GenEnum, GenMessage } from '@bufbuild/protobuf/codegenv2';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { attribute } from '@inkwell/proto/options';
import type { JsonValue, Relationship } from '../jsonapi/document.builder.js';
import type { ResourceSchema } from '../jsonapi/index.js';
import { protoEnumNames, type ProtoEnumNames } from './proto-enum.js';
import { timestampToApiDate } from './timestamps.js';

/**
 * The 1:1 part of a resource's mapping, derived from the descriptor of its proto message and its
 * resource schema (docs/api/foundation.md, "One contract"): what a hand-written mapper adds is
 * only the real translations (links, ids that are not relationships, values that mean more).
 */
export interface ProtoResourceMapper<M extends Message> {
  /** The attributes, in the schema's order. */
  attributes(message: M): { [name: string]: JsonValue };
  /** The relationships, each from the id field (or repeated id field) that holds it. */
  relationships(message: M): { [name: string]: Relationship };
}

/** Options of {@link protoResourceMapper}. */
export interface ProtoResourceMapperOptions {
  /** The API names of enum fields by attribute, where they are not the default (`_`-separated) names. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each enum's names and numbers are its own
  readonly enums?: Readonly<Record<string, ProtoEnumNames<string, any>>>;
}

/** A field value that leaves its attribute out of the document. */
const OMIT = Symbol('omit');

type Read = (message: Record<string, unknown>) => JsonValue | typeof OMIT;

/**
 * Derives the mapper of one resource type. Each attribute is the field of the same name (or the
 * field whose `(inkwell.api.v1.attribute)` option names it): strings, numbers, booleans and
 * repeated strings as they are, enums (single or repeated) by their API names (see protoEnumNames), Timestamps as API
 * dates (null when unset). An unset `optional` field is `null` where the attribute's type allows
 * null, and left out otherwise (e.g. `email` of another user's record). Each relationship is the
 * field `<name>_id` (to-one) or `<name without s>_ids` (to-many), or the one its option names.
 * Throws when a name has no field or a field has no 1:1 form: a mismatch fails at startup.
 */
export function protoResourceMapper<M extends Message>(descriptor: GenMessage<M>, schema: ResourceSchema, options: ProtoResourceMapperOptions = {}): ProtoResourceMapper<M> {
  const readers = schema.attributes.map((name): [string, Read] => [name, attributeReader(descriptor, schema, name, options)]);
  const links = Object.entries(schema.relationships ?? {}).map(([name, target]) => {
    const field = fieldNamed(descriptor, name) ?? descriptor.fields.find((candidate) => candidate.name === (target.many ? `${name.replace(/s$/, '')}_ids` : `${name}_id`));
    if (field === undefined) throw new Error(`${descriptor.typeName} has no field for the relationship ${schema.type}.${name}`);
    return { name, type: target.type, many: target.many, key: field.localName };
  });
  return {
    attributes(message) {
      const values: { [name: string]: JsonValue } = {};
      for (const [name, read] of readers) {
        const value = read(message as unknown as Record<string, unknown>);
        if (value !== OMIT) values[name] = value;
      }
      return values;
    },
    relationships(message) {
      const values: { [name: string]: Relationship } = {};
      for (const { name, type, many, key } of links) {
        const value = (message as unknown as Record<string, unknown>)[key];
        values[name] = { data: many ? (value as readonly string[]).map((id) => ({ type, id })) : { type, id: value as string } };
      }
      return values;
    },
  };
}

/**
 * The attributes of a resource message that are heavy (opt-in: left out unless `fields[type]`
 * names them, docs/api/lists.md, "Sparse fieldsets"): its fields with `(inkwell.api.v1.attribute).opt_in`.
 */
export function optInAttributes(descriptor: DescMessage): string[] {
  return descriptor.fields.filter((field) => hasOption(field, attribute) && getOption(field, attribute).optIn).map((field) => attributeName(field));
}

/** The API name of a field: its `(inkwell.api.v1.attribute)` name, or its own. */
function attributeName(field: DescField): string {
  return (hasOption(field, attribute) ? getOption(field, attribute).name : '') || field.name;
}

/** The field an attribute or relationship names: by its `(inkwell.api.v1.attribute)` option, else by its own name. */
function fieldNamed(descriptor: DescMessage, name: string): DescField | undefined {
  return descriptor.fields.find((field) => attributeName(field) === name);
}

function attributeReader(descriptor: DescMessage, schema: ResourceSchema, name: string, options: ProtoResourceMapperOptions): Read {
  const field = fieldNamed(descriptor, name);
  if (field === undefined) throw new Error(`${descriptor.typeName} has no field for the attribute ${schema.type}.${name}`);
  const key = field.localName;
  const type = schema.attributeTypes?.[name]?.type;
  const unset = Array.isArray(type) && type.includes('null') ? null : OMIT;
  switch (field.fieldKind) {
    case 'scalar':
      return (message) => (message[key] === undefined ? unset : (message[key] as JsonValue));
    case 'enum': {
      const names = options.enums?.[name] ?? protoEnumNames(field.enum as GenEnum<number>);
      return (message) => (message[key] === undefined ? unset : names.fromProto(message[key] as number));
    }
    case 'message':
      if (field.message.typeName !== 'google.protobuf.Timestamp') break;
      return (message) => timestampToApiDate(message[key] as Timestamp | undefined);
    case 'list':
      if (field.listKind === 'scalar') return (message) => message[key] as readonly JsonValue[];
      if (field.listKind === 'enum') {
        const names = options.enums?.[name] ?? protoEnumNames(field.enum as GenEnum<number>);
        // A value this gateway does not know (a newer service) is left out rather than sent as null.
        return (message) => (message[key] as readonly number[]).flatMap((value) => names.fromProto(value) ?? []);
      }
      break;
    default:
      break;
  }
  throw new Error(`${descriptor.typeName}.${field.name} has no 1:1 form for the attribute ${schema.type}.${name}: map it by hand`);
}
