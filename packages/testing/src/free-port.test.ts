import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './processes.js';

const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('hands out ports below the kernel ephemeral range that a server can listen on', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralFrom);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
