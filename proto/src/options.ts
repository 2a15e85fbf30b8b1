/**
 * inkwell.api.v1: Inkwell's own proto options (access, input, JSON:API names) and helpers that
 * read them and the buf.validate rules from descriptors, so that no service or gateway restates
 * a limit the proto owns (docs/api/foundation.md, "One contract").
 */
import { createRegistry, getExtension, getOption, hasExtension, hasOption, isFieldSet, type DescExtension, type DescField, type Message, type Registry } from '@bufbuild/protobuf';
import { field as fieldRulesOption, FieldRulesSchema, predefined, type FieldRules } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { ScopeSchema, type Scope } from './gen/inkwell/api/v1/options_pb.js';
import { file_inkwell_api_v1_rules, tag_id } from './gen/inkwell/api/v1/rules_pb.js';

export * from './gen/inkwell/api/v1/options_pb.js';
export * from './gen/inkwell/api/v1/rules_pb.js';

/**
 * Inkwell's predefined buf.validate rules (`(buf.validate.field).string.(inkwell.api.v1.not_blank)`
 * and the like, proto/inkwell/api/v1/rules.proto), for `createValidator({ registry })`: a
 * validator without them refuses to compile a message that uses one.
 */
export const predefinedRules: Registry = createRegistry(file_inkwell_api_v1_rules);

/**
 * The tag-id syntax (`c:<n>`, `g:<n>`), read from the one place that states it: the `tag_id`
 * rule of proto/inkwell/api/v1/rules.proto (the literal its CEL expression `matches`). For code
 * that must recognise a tag id without refusing a request: dropping what cannot match, an OpenAPI
 * pattern.
 */
export const TAG_ID_PATTERN: RegExp = matchedPattern(tag_id);

/** The regular expression a predefined rule's CEL expression passes to `matches('…')`. */
function matchedPattern(rule: DescExtension): RegExp {
  const expression = getOption(rule, predefined).cel[0]?.expression ?? '';
  const literal = /\bmatches\('([^'\\]+)'\)/.exec(expression)?.[1];
  if (literal === undefined) throw new Error(`The rule ${rule.typeName} matches no pattern literal`);
  return new RegExp(literal, 'u');
}

/** The wire name of a scope: its value name without `SCOPE_`, in lower case (`write_stories`). */
export function scopeName(scope: Scope): string {
  const value = ScopeSchema.value[scope];
  if (value === undefined) throw new Error(`Unknown scope ${scope}`);
  return value.name.replace(/^SCOPE_/, '').toLowerCase();
}

/** The buf.validate rules of `field`; undefined when it has none. */
export function fieldRules(field: DescField): FieldRules | undefined {
  return hasOption(field, fieldRulesOption) ? getOption(field, fieldRulesOption) : undefined;
}

/**
 * A numeric bound of the buf.validate rules: a length, a count or a range end, or one of our
 * predefined rules with a number (`trimmed_max_len`, `search_text_max_len`).
 */
export type RuleBound = 'minLen' | 'maxLen' | 'minBytes' | 'maxBytes' | 'minItems' | 'maxItems' | 'gt' | 'gte' | 'lt' | 'lte' | DescExtension;

/**
 * The bound `bound` of the rules of `field` (of the field itself, or with `of: 'items'` of each
 * item of a repeated field) as a number, e.g. `ruleBound(StoryFilterSchema.field.tagIds, 'maxItems')`;
 * undefined when the rules do not set it. For a service that needs a limit at runtime (a default,
 * a byte budget) without restating it.
 */
export function ruleBound(field: DescField, bound: RuleBound, of: 'field' | 'items' = 'field'): number | undefined {
  const own = fieldRules(field);
  const rules = of === 'field' ? own : own?.type.case === 'repeated' ? own.type.value.items : undefined;
  if (rules?.type.case === undefined) return undefined;
  const typed: Message = rules.type.value;
  if (typeof bound !== 'string') {
    if (bound.extendee.typeName !== typed.$typeName || !hasExtension(typed, bound)) return undefined;
    return toNumber(getExtension(typed, bound));
  }
  if (bound === 'gt' || bound === 'gte' || bound === 'lt' || bound === 'lte') {
    const side = (typed as { greaterThan?: OneofBound; lessThan?: OneofBound })[bound.startsWith('g') ? 'greaterThan' : 'lessThan'];
    return side?.case === bound ? toNumber(side.value) : undefined;
  }
  // buf/validate is proto2: an unset bound reads as 0, so ask whether it is set.
  const boundField = FieldRulesSchema.field[rules.type.case].message?.fields.find((candidate) => candidate.localName === bound);
  if (boundField === undefined || !isFieldSet(typed, boundField)) return undefined;
  return toNumber((typed as Partial<Record<string, unknown>>)[bound]);
}

/** The shape of the `greater_than` / `less_than` oneofs of the numeric rules. */
interface OneofBound {
  case?: string | undefined;
  value?: unknown;
}

function toNumber(value: unknown): number | undefined {
  return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined;
}
