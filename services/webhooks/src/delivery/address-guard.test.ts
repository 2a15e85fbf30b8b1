import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy, isPublicAddress } from './address-guard.js';
import { AddressRefusedError, guardedLookup, type Resolver } from './guarded-lookup.js';
import { WebhookSender } from './webhook-sender.js';

/** A resolver of the test's own: every name answers the given addresses (nothing is looked up). */
const answering = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('isPublicAddress (docs/api/webhooks.md, "Outbound safety")', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '169.254.169.254', '169.254.0.1',
    '100.64.0.1', '100.127.255.254', '0.0.0.0', '255.255.255.255', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1', 'not an address', '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('AddressPolicy', () => {
  it('allows a non-public address only for an allowlisted host', () => {
    const policy = new AddressPolicy(['127.0.0.1', 'Receiver.Local']);
    expect(policy.allowsAddress('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(policy.allowsAddress('receiver.local', '10.0.0.5')).toBe(true);
    expect(policy.allowsAddress('other.example', '127.0.0.1')).toBe(false);
    expect(new AddressPolicy().allowsAddress('127.0.0.1', '127.0.0.1')).toBe(false);
  });
});

describe('guardedLookup (the connect hook)', () => {
  const lookup = (resolver: Resolver, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) => {
      guardedLookup(new AddressPolicy(), resolver)('hooks.example', { all }, (error, address) => resolve({ error, address }));
    });

  it('refuses a name whose resolver answers 127.0.0.1, with or without `all`', async () => {
    for (const all of [true, false]) {
      const { error } = await lookup(answering('127.0.0.1'), all);
      expect(error).toBeInstanceOf(AddressRefusedError);
    }
  });

  it('refuses a name with any non-public address among public ones (no mixed answers)', async () => {
    expect((await lookup(answering('93.184.216.34', '169.254.169.254'), true)).error).toBeInstanceOf(AddressRefusedError);
    expect((await lookup(answering('93.184.216.34', '::ffff:10.0.0.1'), true)).error).toBeInstanceOf(AddressRefusedError);
  });

  it('passes a public answer through in both callback shapes', async () => {
    expect(await lookup(answering('93.184.216.34'), false)).toEqual({ error: null, address: '93.184.216.34' });
    expect(await lookup(answering('93.184.216.34'), true)).toEqual({ error: null, address: [{ address: '93.184.216.34', family: 4 }] });
  });
});

describe('WebhookSender on a loopback receiver', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  let requests = 0;
  let redirectTo: string | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests++;
      request.resume();
      if (redirectTo !== undefined) response.writeHead(302, { location: redirectTo }).end();
      else response.writeHead(200).end('ok');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const attempt = (url: string) => ({ url, headers: { 'webhook-id': 'x' }, body: '{}' });

  it('with the allowlist off, refuses a loopback receiver before any connection (literal, and by name)', async () => {
    const sender = new WebhookSender({ policy: new AddressPolicy(), resolver: answering('127.0.0.1') });
    const before = connections;
    expect(await sender.send(attempt(`https://127.0.0.1:${port}/hook`))).toEqual({ ok: false, error: 'address_refused' });
    expect(await sender.send(attempt(`https://hooks.example:${port}/hook`))).toEqual({ ok: false, error: 'address_refused' });
    expect(await sender.send(attempt(`http://[::ffff:127.0.0.1]:${port}/hook`))).toEqual({ ok: false, error: 'address_refused' });
    expect(connections).toBe(before);
  });

  it('refuses plain http to a host that is not allowlisted, and URLs with credentials', () => {
    const sender = new WebhookSender({ policy: new AddressPolicy(['127.0.0.1']) });
    expect(sender.refusal('http://hooks.example/x')).toMatch(/https/);
    expect(sender.refusal(`http://127.0.0.1:${port}/x`)).toBeUndefined();
    expect(sender.refusal('https://user:pw@hooks.example/x')).toMatch(/credentials/);
    expect(sender.refusal('https://10.1.2.3/x')).toMatch(/non-public/);
  });

  it('reads at most 64 KiB of a response body, then drops the connection', async () => {
    const TOTAL = 64 * 1024 * 1024;
    let finished: Promise<boolean> = Promise.resolve(true);
    const talker = createServer((request, response) => {
      request.resume();
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      finished = new Promise((resolve) => {
        response.on('close', () => resolve(response.writableFinished));
        const pump = () => {
          while (sent < TOTAL) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.end();
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => talker.listen(0, '127.0.0.1', resolve));
    try {
      const sender = new WebhookSender({ policy: new AddressPolicy(['127.0.0.1']) });
      expect(await sender.send(attempt(`http://127.0.0.1:${(talker.address() as AddressInfo).port}/hook`))).toMatchObject({ ok: true, statusCode: 200 });
      expect(await finished).toBe(false);
    } finally {
      talker.closeAllConnections();
      await new Promise<void>((resolve) => talker.close(() => resolve()));
    }
  });

  it('delivers to an allowlisted loopback receiver, and does not follow a redirect', async () => {
    const sender = new WebhookSender({ policy: new AddressPolicy(['127.0.0.1']) });
    expect(await sender.send(attempt(`http://127.0.0.1:${port}/hook`))).toMatchObject({ ok: true, statusCode: 200 });
    redirectTo = `http://127.0.0.1:${port}/elsewhere`;
    const before = requests;
    expect(await sender.send(attempt(`http://127.0.0.1:${port}/hook`))).toMatchObject({ ok: false, statusCode: 302, error: 'redirect' });
    expect(requests).toBe(before + 1);
    redirectTo = undefined;
  });
});
