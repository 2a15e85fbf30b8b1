import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, repoRoot, stackEnv, withDatabase } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answerMismatches, guideExamples, runExample, substituteProvided, type ProvidedVariables } from './support/guide-examples.js';
import { authorizeThroughPages } from './support/oauth-flow.js';
import { WebClient } from './support/web-client.js';

/**
 * The guide's examples run (docs/guide.md and docs/guide/*.md, issue 26): every ```sh block of
 * every page, in the order of the guide's index and of each page, against a whole system started
 * like `npm run dev` (demo data, the demo user's token), with the variables a reader's terminal
 * would hold carried from example to example and page to page. Each example must exit 0 (the
 * pages use `curl --fail-with-body` where a request must succeed), and where the page shows what
 * it prints (a ```json or ```http block after it) the output must have that shape. The sign-in
 * and consent a reader does in a browser are done through the real pages.
 */

const ROOT = repoRoot();
const GUIDE_DIR = join(ROOT, 'docs', 'guide');
/** The guide's pages in the order of its index, docs/guide.md, which must list every page. */
const INDEX = readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8');
const ORDER = [...INDEX.matchAll(/\]\(guide\/([a-z0-9-]+\.md)(?:#[^)]*)?\)/g)].map((match) => match[1] as string).filter((page, index, all) => all.indexOf(page) === index);
/** Where the pages say Inkwell runs: `npm run dev`'s gateway. */
const PAGES_ORIGIN = 'http://127.0.0.1:8080';
/** The test system's database (its own, as every gateway e2e test has). */
const DATABASE = 'inkwell_gateway_guide';
const PAGES = ['guide.md', ...ORDER.map((page) => `guide/${page}`)];

interface DemoCredentials {
  user: { name: string; password: string };
  personalToken: { token: string };
}

let stack: GatewayStack;
let credentialsDir: string;
let demo: DemoCredentials;
/** The reader's terminal: every variable set so far (the stack's stores for the operator CLI besides). */
let variables: Record<string, string>;
let provided: ProvidedVariables;

beforeAll(async () => {
  // The examples use jq and openssl besides curl; install Debian's where missing, as for Chromium.
  for (const tool of ['jq', 'openssl']) execFileSync('bash', ['-c', `. tools/lib.sh && ensure_debian_package ${tool} command -v ${tool}`], { cwd: ROOT, stdio: 'inherit' });
  credentialsDir = mkdtempSync(join(tmpdir(), 'inkwell-guide-demo-'));
  const credentialsFile = join(credentialsDir, 'demo-credentials.json');
  stack = await startGatewayStack(DATABASE, { DEMO_CREDENTIALS_FILE: credentialsFile, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  demo = JSON.parse(readFileSync(credentialsFile, 'utf8')) as DemoCredentials;
  // A reader starts once `npm run dev` shows its demo stories: wait until the story index has them.
  await eventually(
    async () => {
      const answer = await fetch(`${stack.system.apiUrl}/stories?page%5Bsize%5D=1`, { headers: { authorization: `Bearer ${demo.personalToken.token}` } });
      return answer.ok && ((await answer.json()) as { data: unknown[] }).data.length > 0;
    },
    { timeoutMs: 120_000, intervalMs: 500, what: 'the demo stories listed by GET /stories' },
  );
  const stores = stackEnv();
  variables = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? ROOT,
    LANG: 'C.UTF-8',
    // What `npm run cli` reads from .stack/env on a reader's machine: here the test system's database.
    DATABASE_URL: withDatabase(stores.databaseUrl, DATABASE),
    REDIS_URL: stores.redisUrl,
    REDIS_KEY_PREFIX: stack.system.redisKeyPrefix,
  };
  provided = {
    INKWELL: stack.origin,
    TOKEN: demo.personalToken.token,
    CODE: authorizationCode,
    // The webhook receiver of docs/guide/webhooks.md listens on a port free on this machine.
    HOOKS_PORT: String(await freePort()),
  };
}, 600_000);

afterAll(async () => {
  // The webhooks page's receiver, should the page have failed before stopping it.
  const receiver = Number(variables?.RECEIVER_PID);
  if (Number.isInteger(receiver) && receiver > 0) {
    try {
      process.kill(receiver);
    } catch {
      // already stopped by the page
    }
  }
  await stack?.stop();
  if (credentialsDir !== undefined) rmSync(credentialsDir, { recursive: true, force: true });
});

/**
 * What a reader copies from the browser's address bar after signing in and allowing the app:
 * the `code` of the redirect. Drives `AUTHORIZE_URL` (set by the page's example) through the
 * real sign-in and consent pages as the demo user, and checks that the redirect goes to the
 * URL's `redirect_uri` with its `state` and our `iss` (docs/api/auth.md, "Authorization requests").
 */
async function authorizationCode(current: Readonly<Record<string, string>>): Promise<string> {
  const url = current.AUTHORIZE_URL;
  if (url === undefined) throw new Error('CODE is asked for before any example set AUTHORIZE_URL');
  const request = new URL(url);
  const { redirect } = await authorizeThroughPages(new WebClient(stack.origin), request, demo.user.name, demo.user.password);
  expect(redirect.origin + redirect.pathname).toBe(request.searchParams.get('redirect_uri'));
  expect(redirect.searchParams.get('state')).toBe(request.searchParams.get('state'));
  expect(redirect.searchParams.get('iss')).toBe(stack.origin);
  const code = redirect.searchParams.get('code');
  if (code === null) throw new Error(`the redirect carries no code: ${redirect.href}`);
  return code;
}

describe('the guide (docs/guide.md, docs/guide/)', () => {
  it('lists every page of docs/guide/ in its index', () => {
    const pages = readdirSync(GUIDE_DIR).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(5);
    expect([...ORDER].sort()).toEqual([...pages].sort());
  });

  it.each(PAGES)('every example of %s runs and prints what the page shows', async (page) => {
    // The pages show Inkwell where `npm run dev` serves it; here it is the test system.
    const examples = guideExamples(readFileSync(join(ROOT, 'docs', page), 'utf8').replaceAll(PAGES_ORIGIN, stack.origin));
    for (const example of examples) {
      const script = await substituteProvided(example.script, provided, variables);
      const run = await runExample(script, variables, ROOT);
      const where = `docs/${page}, line ${example.line}`;
      if (run.exitCode !== 0) throw new Error(`${where}: the example exited ${run.exitCode}\n--- example\n${script}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
      if (example.expected !== undefined) {
        const problems = answerMismatches(example.expected, run.stdout);
        if (problems.length > 0) throw new Error(`${where}: what it printed differs from the answer at line ${example.expected.line}:\n  ${problems.join('\n  ')}\n--- stdout\n${run.stdout}`);
      }
      variables = run.variables;
    }
  }, 300_000);
});
