import { stackEnv, startSystem } from '@inkwell/testing';

/** `npm run dev`: the whole system on the documented ports, with demo data, until Ctrl-C. */
async function main(): Promise<void> {
  const system = await startSystem({
    stack: stackEnv(),
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
    `  Metrics:  ${system.gatewayUrl}/metrics`,
    `  Try:      curl -s ${system.apiUrl}/users/1`,
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
