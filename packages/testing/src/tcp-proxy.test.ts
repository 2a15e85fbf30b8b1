import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

let proxy: TcpProxy | undefined;
const echo = createServer((socket) => socket.pipe(socket));

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  if (echo.listening) await new Promise((resolve) => echo.close(resolve));
});

/** Connects to `address`, sends `text` and resolves what came back, or the error that ended the connection. */
async function roundTrip(address: string, text: string): Promise<string> {
  const [host, port] = address.split(':');
  const socket = connect(Number(port), host);
  let received = '';
  socket.on('data', (chunk) => {
    received += String(chunk);
    if (received.length >= text.length) socket.end();
  });
  socket.write(text);
  try {
    await once(socket, 'close');
  } finally {
    socket.destroy();
  }
  return received;
}

describe('startTcpProxy', () => {
  it('refuses until told to forward, then carries the bytes both ways, and refuses again on demand', async () => {
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const target = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
    proxy = await startTcpProxy();

    await expect(roundTrip(proxy.address, 'hello')).rejects.toMatchObject({ code: 'ECONNRESET' });
    proxy.forward(target);
    expect(await roundTrip(proxy.address, 'hello')).toBe('hello');
    proxy.refuse();
    await expect(roundTrip(proxy.address, 'again')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(proxy.connections).toBe(3);
  });
});
