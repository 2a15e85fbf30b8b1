import { parseArgs } from 'node:util';
import { create, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { parseScopes, SCOPE_NAMES } from '@inkwell/auth-tokens';
import { messageRefusal } from '@inkwell/grpc';
import { CreateClientRequestSchema, CreatePersonalTokenRequestSchema, RegisterUserRequestSchema } from '@inkwell/proto/users';
import { MODERATION_ACTIONS, MODERATION_LIMITS, type ModerationAction, type ReportCase } from '../domain/moderation.js';
import type { UsersServices } from '../services.js';

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What a command prints: lines for people, and the same facts as an object for `--json`. */
export interface CommandResult {
  lines: string[];
  json: Record<string, unknown>;
}

/** The usage text of `npm run cli -- help`. */
export const USAGE = `Inkwell operator CLI (users, apps, tokens). Talks to the users database directly.

Usage: npm run cli -- <command> [options] [--json]

Commands:
  create-user --name <name> --email <address> --password <password>
      Registers an account (same rules as sign-up).
  create-app --name <name> --redirect-uri <uri> [--redirect-uri <uri> ...] [--origin <origin> ...] [--public] [--owner <user id|name>]
      Registers an OAuth app; prints its client id and, for confidential apps, its secret (once).
      --origin: a web origin its browser app calls the API from (CORS), e.g. https://app.example.com.
  mint-token --user <user id|name> --scopes "<scope> <scope> ..." [--name <label>] [--expires-in-days <n>]
      Mints a personal access token for the user; prints it (once). Scopes: ${SCOPE_NAMES.join(', ')}.
  revoke-token <token>
      Revokes one access, refresh or personal token.
  revoke-tokens --user <user id|name>
      Revokes every token of the user (all apps and personal tokens).
  reports list [--limit <n>]
      The open moderation queue, oldest first (docs/api/safety.md, "Reports and moderation").
  reports show <id>
      One queue entry: the reported item as it was when first reported, its reports, the actions taken.
  reports resolve <id> --action dismiss|hide|suspend --reason "<why>" --operator <your name>
      Closes an entry: dismiss; hide the item (its owning service hides it everywhere); or suspend
      the account it belongs to (all its tokens revoked at once, sign-in refused). Recorded with
      operator, time and reason.
  help
      Shows this text.

Environment: DATABASE_URL, REDIS_URL (defaults from .stack/env on a developer machine).
Exit codes: 0 done, 1 refused (e.g. name taken, unknown user), 2 usage error.`;

const nonEmpty = z.string().trim().min(1);

const schemas = {
  'create-user': z.object({ name: nonEmpty, email: nonEmpty, password: z.string().min(1) }),
  'create-app': z.object({
    name: nonEmpty,
    'redirect-uri': z.array(nonEmpty).min(1, 'at least one --redirect-uri'),
    origin: z.array(nonEmpty).default([]),
    public: z.boolean().default(false),
    owner: nonEmpty.optional(),
  }),
  'mint-token': z.object({
    user: nonEmpty,
    scopes: z.string().default(''),
    name: nonEmpty.default('operator token'),
    'expires-in-days': z.coerce.number().int().min(1).max(3650).optional(),
  }),
  'revoke-tokens': z.object({ user: nonEmpty }),
  'reports list': z.object({ limit: z.coerce.number().int().min(1).max(MODERATION_LIMITS.listMax).default(50) }),
  'reports resolve': z.object({ action: z.enum(MODERATION_ACTIONS), reason: nonEmpty, operator: nonEmpty }),
} as const;

const OPTIONS = {
  name: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  origin: { type: 'string', multiple: true },
  public: { type: 'boolean' },
  owner: { type: 'string' },
  user: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in-days': { type: 'string' },
  limit: { type: 'string' },
  action: { type: 'string' },
  reason: { type: 'string' },
  operator: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The options each command accepts (besides --json). */
const ALLOWED: Record<string, readonly string[]> = {
  'create-user': ['name', 'email', 'password'],
  'create-app': ['name', 'redirect-uri', 'origin', 'public', 'owner'],
  'mint-token': ['user', 'scopes', 'name', 'expires-in-days'],
  'revoke-token': [],
  'revoke-tokens': ['user'],
  reports: ['limit', 'action', 'reason', 'operator'],
  help: [],
};

/** A parsed command line. */
export interface ParsedCommand {
  command: string;
  values: Record<string, unknown>;
  positionals: string[];
  json: boolean;
}

/** Parses argv (without node and script); UsageError for unknown commands or options. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const [command = 'help', ...positionals] = parsed.positionals;
  const allowed = ALLOWED[command];
  if (allowed === undefined) throw new UsageError(`Unknown command "${command}".`);
  const { json, ...values } = parsed.values;
  const extra = Object.keys(values).filter((key) => !allowed.includes(key));
  if (extra.length > 0) throw new UsageError(`${command} does not take --${extra.join(', --')}.`);
  return { command, values, positionals, json: json === true };
}

function validate<S extends z.ZodType>(command: string, schema: S, values: unknown): z.output<S> {
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message.includes('received undefined') ? 'is required' : issue.message}`);
  throw new UsageError(`${command}: ${problems.join('; ')}`);
}

/**
 * Refuses what the matching RPC would refuse by its request's rules (users_service.proto), with
 * the same AppError: the CLI calls the services directly, past the gRPC server that checks them.
 */
function checkRules<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): void {
  const refused = messageRefusal(schema, create(schema, init));
  if (refused !== undefined) throw refused;
}

/** Runs a parsed command against the users services. AppErrors (taken name, unknown user, …) propagate. */
export async function runCommand(services: UsersServices, { command, values, positionals }: ParsedCommand): Promise<CommandResult> {
  if (command === 'reports') return runReportsCommand(services, values, positionals);
  if (command !== 'revoke-token' && positionals.length > 0) throw new UsageError(`${command} takes no positional arguments (got "${positionals.join(' ')}").`);
  switch (command) {
    case 'create-user': {
      const args = validate(command, schemas[command], values);
      checkRules(RegisterUserRequestSchema, args);
      const user = await services.accounts.register(args);
      return { lines: [`Created user ${user.name} (id ${user.id}).`], json: { id: user.id, name: user.name, email: user.email } };
    }
    case 'create-app': {
      const args = validate(command, schemas[command], values);
      const app = { name: args.name, redirectUris: args['redirect-uri'], allowedOrigins: args.origin, confidential: !args.public };
      checkRules(CreateClientRequestSchema, app);
      const owner = args.owner === undefined ? undefined : await services.accounts.findUser(args.owner);
      const { client, secret } = await services.clients.create({ ...app, ...(owner === undefined ? {} : { ownerUserId: owner.id }) });
      const lines = [`Created ${client.confidential ? 'confidential' : 'public'} app "${client.name}".`, `client_id:     ${client.id}`];
      if (secret !== undefined) lines.push(`client_secret: ${secret}`, 'The secret is shown only now; store it safely.');
      else lines.push('Public app: it has no secret and must use PKCE (S256).');
      return { lines, json: { clientId: client.id, ...(secret === undefined ? {} : { clientSecret: secret }), name: client.name, confidential: client.confidential, redirectUris: client.redirectUris, allowedOrigins: client.allowedOrigins } };
    }
    case 'mint-token': {
      const args = validate(command, schemas[command], values);
      const { scopes, unknown } = parseScopes(args.scopes);
      if (unknown.length > 0) throw new UsageError(`mint-token: unknown scope ${unknown.join(', ')}; known: ${SCOPE_NAMES.join(' ')}`);
      const days = args['expires-in-days'];
      const expiresAt = days === undefined ? undefined : new Date(Date.now() + days * 86_400_000);
      checkRules(CreatePersonalTokenRequestSchema, { name: args.name, scopes, ...(expiresAt === undefined ? {} : { expiresAt: timestampFromDate(expiresAt) }) });
      const user = await services.accounts.findUser(args.user);
      // The operator acts as the user named on the command line.
      const { token, personalToken } = await services.personalTokens.create({ userId: user.id, scopes: [] }, { name: args.name, scopes, ...(expiresAt === undefined ? {} : { expiresAt }) });
      return {
        lines: [
          `Personal access token for ${user.name} (id ${user.id}), scopes: ${scopes.join(' ') || '(none)'}${personalToken.expiresAt ? `, expires ${personalToken.expiresAt.toISOString()}` : ', no expiry'}:`,
          token,
          'It is shown only now. Use it as: Authorization: Bearer <token>',
        ],
        json: { token, tokenId: personalToken.id, userId: user.id, scopes, expiresAt: personalToken.expiresAt?.toISOString() ?? null },
      };
    }
    case 'revoke-token': {
      const [token, ...rest] = positionals;
      if (token === undefined || token.trim() === '' || rest.length > 0) throw new UsageError('revoke-token takes exactly one token.');
      const revoked = await services.tokens.revokeToken(token.trim(), undefined);
      return { lines: [revoked ? 'Token revoked.' : 'No active token matched; nothing to revoke.'], json: { revoked } };
    }
    case 'revoke-tokens': {
      const args = validate(command, schemas[command], values);
      const user = await services.accounts.findUser(args.user);
      const count = await services.tokens.revokeUserTokens(user.id);
      return { lines: [`Revoked ${count} active token${count === 1 ? '' : 's'} of ${user.name} (id ${user.id}).`], json: { userId: user.id, revoked: count } };
    }
    default:
      return { lines: [USAGE], json: { usage: USAGE } };
  }
}

const REPORTS_OPTIONS: Readonly<Record<string, readonly string[]>> = { list: ['limit'], show: [], resolve: ['action', 'reason', 'operator'] };

/** `reports list|show|resolve`: the operators' moderation queue (docs/api/safety.md, "Reports and moderation"). */
async function runReportsCommand(services: UsersServices, values: Record<string, unknown>, positionals: readonly string[]): Promise<CommandResult> {
  const [sub, ...rest] = positionals;
  const allowed = sub === undefined ? undefined : REPORTS_OPTIONS[sub];
  if (allowed === undefined) throw new UsageError('reports takes list, show <id> or resolve <id>.');
  const extra = Object.keys(values).filter((key) => !allowed.includes(key));
  if (extra.length > 0) throw new UsageError(`reports ${sub} does not take --${extra.join(', --')}.`);
  if (sub === 'list') {
    if (rest.length > 0) throw new UsageError('reports list takes no id.');
    const { limit } = validate('reports list', schemas['reports list'], values);
    const cases = await services.moderation.listOpen(limit);
    const lines = cases.length === 0 ? ['The queue is empty.'] : cases.map(caseLine);
    return { lines, json: { reports: cases.map(caseJson) } };
  }
  const [id, ...more] = rest;
  if (id === undefined || more.length > 0) throw new UsageError(`reports ${sub} takes exactly one id.`);
  if (sub === 'show') {
    const { reportCase, reports, actions } = await services.moderation.show(id);
    const lines = [
      caseLine(reportCase),
      'Reported content (as first reported):',
      reportCase.snapshot,
      'Reports:',
      ...reports.map((report) => `  ${report.dateReported.toISOString()}  user ${report.reporterId}  ${report.reason}${report.details === '' ? '' : `: ${report.details}`}`),
      'Actions:',
      ...(actions.length === 0 ? ['  (none)'] : actions.map(actionLine)),
    ];
    return { lines, json: { report: caseJson(reportCase), reports: reports.map((report) => ({ ...report, dateReported: report.dateReported.toISOString() })), actions: actions.map(actionJson) } };
  }
  const args = validate('reports resolve', schemas['reports resolve'], values);
  const result = await services.moderation.resolve({ caseId: id, action: args.action, operator: args.operator, reason: args.reason });
  const lines = [`Resolved report ${id}: ${actionLine(result.action).trim()}.`];
  if (result.suspendedUserId !== undefined) lines.push(`Suspended user ${result.suspendedUserId}; revoked ${result.revokedTokens} active token${result.revokedTokens === 1 ? '' : 's'}.`);
  return { lines, json: { report: caseJson(result.reportCase), action: actionJson(result.action), suspendedUserId: result.suspendedUserId ?? null, revokedTokens: result.revokedTokens } };
}

function caseLine(reportCase: ReportCase): string {
  const state = reportCase.dateResolved === undefined ? 'open' : `resolved ${reportCase.dateResolved.toISOString()}`;
  return `#${reportCase.id}  ${reportCase.targetType} ${reportCase.targetId}  ${reportCase.numReports} report${reportCase.numReports === 1 ? '' : 's'}  opened ${reportCase.dateOpened.toISOString()}  ${state}${reportCase.ownerId === undefined ? '' : `  owner ${reportCase.ownerId}`}`;
}

function caseJson(reportCase: ReportCase): Record<string, unknown> {
  return { ...reportCase, dateOpened: reportCase.dateOpened.toISOString(), dateResolved: reportCase.dateResolved?.toISOString() ?? null, ownerId: reportCase.ownerId ?? null };
}

function actionLine(action: ModerationAction): string {
  return `  ${action.dateTaken.toISOString()}  ${action.action} by ${action.operator}: ${action.reason}`;
}

function actionJson(action: ModerationAction): Record<string, unknown> {
  return { ...action, dateTaken: action.dateTaken.toISOString() };
}
