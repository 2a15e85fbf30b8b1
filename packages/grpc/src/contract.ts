import { create, getOption, hasOption, type DescField, type DescMessage, type DescMethod, type Message } from '@bufbuild/protobuf';
import type { Path } from '@bufbuild/protobuf/reflect';
import { createValidator, type Validator, type Violation } from '@bufbuild/protovalidate';
import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import { access, input, predefinedRules, rule_input, scopeName, Scope, type Input } from '@inkwell/proto/options';
import type { CallerContext } from './caller-context.js';

/**
 * What the proto declares about one RPC (docs/api/foundation.md, "One contract"): who may call it
 * (`(inkwell.api.v1.access)`, read when the service is added) and the buf.validate rules of its
 * request, with where each violation is reported (`(inkwell.api.v1.input)`). The rules compile on
 * their first use or at {@link MethodContract.prepare}, whichever comes first.
 */
export interface MethodContract {
  /** The access refusal of `caller` (scope, then signed-in user), or undefined when it may call. */
  refuseCaller(caller: CallerContext): AppError | undefined;
  /** The violations of the request's rules as one INVALID_ARGUMENT, or undefined when it is valid. */
  refuseRequest(request: Message): AppError | undefined;
  /** Compiles the request's rules now, so that the first call does not; throws when they do not compile. */
  prepare(): void;
}

/** Where a violation is reported: the API error detail without its sentence, and the name that starts it. */
interface Target {
  source: { pointer: string } | { parameter: string };
  reason: string;
  /** The attribute or parameter the generated sentence names (`title`, `page[size]`). */
  name: string;
  /** The fixed sentence of the input option, when it has one. */
  detail: string | undefined;
  /** The fixed sentence of a violation of an item's rules, when the input option has one. */
  itemDetail: string | undefined;
}

/**
 * A validator of request messages that knows our predefined rules (proto/inkwell/api/v1/rules.proto):
 * one per server, or per process for entry points that are not RPCs (`messageRefusal`). It
 * compiles each message's rules once, on first use.
 */
export function createRequestValidator(): Validator {
  return createValidator({ registry: predefinedRules });
}

/** The detail of a call that needs a user but came from an app acting alone (or no one). */
const USER_REQUIRED = 'This request needs a signed-in user: an app-only token cannot make it.';

/**
 * The contract of `method`, with `validator` (one per server). Its request's rules compile later
 * ({@link MethodContract.prepare}): compiling every method's at once is most of a service's
 * start-up CPU after loading its code. A test compiles every RPC's rules (packages/grpc/test), so
 * a rule that does not compile fails CI rather than a call.
 */
export function compileContract(method: DescMethod, validator: Validator): MethodContract {
  const accessCheck = compileAccess(method);
  const targets = new Targets(method.input);
  const schema = method.input;
  return {
    prepare() {
      const warmUp = validator.validate(schema, create(schema));
      if (warmUp.kind === 'error') throw new Error(`The rules of ${schema.typeName} do not compile: ${warmUp.error.message}`, { cause: warmUp.error });
    },
    refuseCaller: (caller) => accessCheck?.(caller),
    refuseRequest(request) {
      const result = validator.validate(schema, request);
      if (result.kind === 'valid') return undefined;
      // A rule that cannot be evaluated is our fault, not the caller's: let it become INTERNAL.
      if (result.kind === 'error') throw result.error;
      return violationsError(result.violations.map((violation) => targets.detailOf(violation)));
    },
  };
}

/** The detail of a call that only the user themself may make, but that came through an app. */
const FIRST_PARTY_REQUIRED = 'Only you can do this, with a personal access token or on your signed-in pages: an app cannot, whatever its scopes.';

/**
 * The access check of `method`, or undefined when it declares none: first-party (a caller with
 * an app is forbidden, before anything else), then the scope, then a signed-in user.
 */
function compileAccess(method: DescMethod): ((caller: CallerContext) => AppError | undefined) | undefined {
  if (!hasOption(method, access)) return undefined;
  const { scope, user, firstParty } = getOption(method, access);
  const needed = scope === Scope.UNSPECIFIED ? undefined : scopeName(scope);
  if (needed === undefined && !user && !firstParty) return undefined;
  return (caller) => {
    if (firstParty && caller.appId !== undefined) return AppError.forbidden(FIRST_PARTY_REQUIRED);
    if (needed !== undefined && !caller.scopes.includes(needed)) return AppError.insufficientScope(needed);
    if (user && caller.userId === undefined) {
      return new AppError(ErrorCode.UNAUTHENTICATED, USER_REQUIRED, { details: [{ reason: 'invalid_token', detail: USER_REQUIRED }] });
    }
    return undefined;
  };
}

/** INVALID_ARGUMENT with every distinct detail, its message the details' sentences. */
function violationsError(all: ErrorDetail[]): AppError {
  const seen = new Set<string>();
  const details = all.filter((detail) => {
    const key = `${detail.reason}\u0000${detail.pointer ?? ''}\u0000${detail.parameter ?? ''}\u0000${detail.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return new AppError(ErrorCode.INVALID_ARGUMENT, details.map((detail) => detail.detail).join(' '), { details });
}

/** The report target of every field and message-level rule reachable from one request message, computed once. */
class Targets {
  readonly #fields = new Map<DescField, Target>();
  /** Per message: its CEL rules' targets by rule id. */
  readonly #rules = new Map<DescMessage, Map<string, Target>>();
  readonly #root: DescMessage;

  constructor(root: DescMessage) {
    this.#root = root;
    this.#collect(root, new Set());
  }

  /** The API error detail of one violation. */
  detailOf(violation: Violation): ErrorDetail {
    const field = lastField(violation.field);
    const target = isMessageRule(violation) ? this.#messageRuleTarget(field, violation.ruleId) : this.#fieldTarget(field);
    const detail = (isItemViolation(violation) ? target.itemDetail : undefined) ?? target.detail ?? sentence(target.name, violation);
    return { reason: target.reason, ...target.source, detail };
  }

  #collect(message: DescMessage, visited: Set<DescMessage>): void {
    if (visited.has(message)) return;
    visited.add(message);
    if (hasOption(message, rule_input)) {
      const byRule = new Map<string, Target>();
      for (const entry of getOption(message, rule_input)) {
        if (entry.input !== undefined) byRule.set(entry.rule, targetOf(entry.input, entry.rule));
      }
      this.#rules.set(message, byRule);
    }
    for (const field of message.fields) {
      this.#fields.set(field, hasOption(field, input) ? targetOf(getOption(field, input), field.name) : defaultTarget(field.name));
      const nested = field.fieldKind === 'message' || field.fieldKind === 'list' || field.fieldKind === 'map' ? field.message : undefined;
      if (nested !== undefined) this.#collect(nested, visited);
    }
  }

  #fieldTarget(field: DescField | undefined): Target {
    if (field === undefined) return ROOT_TARGET;
    return this.#fields.get(field) ?? defaultTarget(field.name);
  }

  /** A message rule's target: its rule input, else that of the field holding the message (the body at the top). */
  #messageRuleTarget(holder: DescField | undefined, ruleId: string): Target {
    const message = holder === undefined ? this.#root : holder.message;
    return (message === undefined ? undefined : this.#rules.get(message)?.get(ruleId)) ?? this.#fieldTarget(holder);
  }
}

/** Reported at the whole body: a message rule of the request itself that names no input. */
const ROOT_TARGET: Target = { source: { pointer: '/data' }, reason: 'validation_failed', name: 'the request', detail: undefined, itemDetail: undefined };

function defaultTarget(name: string): Target {
  return { source: { pointer: `/data/attributes/${name}` }, reason: 'validation_failed', name, detail: undefined, itemDetail: undefined };
}

function targetOf(option: Input, fallbackName: string): Target {
  const sentences = { detail: option.detail || undefined, itemDetail: option.itemDetail || undefined };
  switch (option.source.case) {
    case 'pointer': {
      const pointer = option.source.value;
      return { source: { pointer }, reason: option.reason || 'validation_failed', name: pointer.slice(pointer.lastIndexOf('/') + 1), ...sentences };
    }
    case 'parameter':
      return { source: { parameter: option.source.value }, reason: option.reason || 'invalid_parameter', name: option.source.value, ...sentences };
    default:
      return { ...defaultTarget(fallbackName), ...(option.reason === '' ? {} : { reason: option.reason }), ...sentences };
  }
}

/** True when the violation is of one item of a repeated field (or one value of a map), not of the field. */
function isItemViolation(violation: Violation): boolean {
  const last = violation.field.at(-1);
  return last !== undefined && last.kind !== 'field';
}

/** The last field of a violation's path (the item of a list or map reports as its field). */
function lastField(path: Path): DescField | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const item = path[i];
    if (item?.kind === 'field') return item;
  }
  return undefined;
}

/**
 * True for a rule of a message as a whole (`(buf.validate.message).cel`, a oneof rule), not of one
 * of its fields: protovalidate gives those no rule path.
 */
function isMessageRule(violation: Violation): boolean {
  return violation.rule.length === 0;
}

/**
 * The sentence of a violation: a rule's message that starts with a capital letter is a sentence
 * of its own ("The search text is longer than 200 characters."); any other is the requirement
 * after the name, as a sentence ("title must be at most 200 characters.", "tag_ids is required.").
 */
function sentence(name: string, violation: Violation): string {
  if (/^\p{Lu}/u.test(violation.message)) return violation.message;
  return `${name} ${plainRequirement(violation.message.replace(/^(repeated )?value /, ''))}.`;
}

/** protovalidate's wording of a requirement, where plainer words say the same. */
function plainRequirement(requirement: string): string {
  const items = /^must contain no more than (\d+) item\(s\)$/.exec(requirement);
  if (items !== null) return `must have at most ${items[1]} items`;
  const bytes = /^must be at most (\d+) bytes$/.exec(requirement);
  if (bytes !== null) return `must be at most ${bytes[1]} bytes${binarySize(Number(bytes[1]))} of UTF-8`;
  return requirement;
}

/** ` (1 MiB)` for a whole number of MiB or KiB, else nothing. */
function binarySize(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return ` (${bytes / (1 << 20)} MiB)`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return ` (${bytes / (1 << 10)} KiB)`;
  return '';
}

/**
 * The refusal of `message` by the buf.validate rules of its schema alone (no access check),
 * reported exactly as the server reports a request's violations; undefined when it is valid. For
 * entry points that are not RPCs, such as the operator CLIs, which call a service directly and
 * must refuse what the RPC would (docs/api/foundation.md, "One contract"). `validator` defaults
 * to one request validator for the process.
 */
export function messageRefusal(schema: DescMessage, message: Message, validator: Validator = processValidator()): AppError | undefined {
  const result = validator.validate(schema, message);
  if (result.kind === 'valid') return undefined;
  if (result.kind === 'error') throw result.error;
  const targets = new Targets(schema);
  return violationsError(result.violations.map((violation) => targets.detailOf(violation)));
}

let sharedValidator: Validator | undefined;

/** The request validator of `messageRefusal` callers, made on first use. */
function processValidator(): Validator {
  sharedValidator ??= createRequestValidator();
  return sharedValidator;
}
