import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, stackEnv, startSystem } from '@inkwell/testing';

/** Written by the users service's demo seed (services/users/src/seed/demo.seed.ts); gitignored under .stack/. */
const DEMO_CREDENTIALS_FILE = join(repoRoot(), '.stack', 'demo-credentials.json');

interface DemoCredentials {
  user: { name: string; password: string };
  personalToken: { token: string };
  app: { clientId: string; clientSecret: string; redirectUris: string[] };
}

/** The banner lines for the demo credentials; none when the seed wrote none. */
function demoLines(apiUrl: string): string[] {
  if (!existsSync(DEMO_CREDENTIALS_FILE)) return [];
  const demo = JSON.parse(readFileSync(DEMO_CREDENTIALS_FILE, 'utf8')) as DemoCredentials;
  return [
    '',
    `  Demo user:  ${demo.user.name} / ${demo.user.password}`,
    `  Token:      ${demo.personalToken.token}`,
    `              (${demo.user.name}'s personal token with every scope; a new one each start, the previous one is revoked)`,
    `  Try:        curl -s -H "Authorization: Bearer ${demo.personalToken.token}" ${apiUrl}/users/me`,
    `  Demo app:   client_id ${demo.app.clientId}`,
    `              client_secret ${demo.app.clientSecret} (new each start)`,
    `              redirect URIs ${demo.app.redirectUris.join(', ')}`,
  ];
}

/** `npm run dev`: the whole system on the documented ports, with demo data, until Ctrl-C. */
async function main(): Promise<void> {
  rmSync(DEMO_CREDENTIALS_FILE, { force: true });
  const system = await startSystem({
    stack: stackEnv(),
    // Webhooks may reach receivers on this machine (docs/api/webhooks.md, "Outbound safety").
    env: { DEMO_CREDENTIALS_FILE, WEBHOOK_ALLOWED_HOSTS: process.env.WEBHOOK_ALLOWED_HOSTS ?? '127.0.0.1,localhost' },
    ports: 'fixed',
    seedDemoData: true,
    echo: true,
    gatewayPort: Number(process.env.GATEWAY_PORT ?? 8080),
  });
  const lines = [
    '',
    'Inkwell is running.',
    `  API:      ${system.apiUrl}`,
    `  Health:   ${system.gatewayUrl}/readyz`,
    `  Metrics:  ${system.gatewayMetricsUrl}`,
    `  Sign in:  ${system.gatewayUrl}/signin   (developer page: ${system.gatewayUrl}/developer)`,
    `  Docs:     ${system.gatewayUrl}/docs   (API reference; "Authorize" signs in and "Try it out" calls the API)`,
    `            ${system.gatewayUrl}/docs/api   (the API documentation pages)`,
    `            ${system.gatewayUrl}/docs/guide   (the guide: your first hour with the API)`,
    ...demoLines(system.apiUrl),
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(lines.join('\n'));

  const stop = async () => {
    await system.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
