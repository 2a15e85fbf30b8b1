import { createServer, type Server } from 'node:http';

/** Why the refusing engine turns down every pull, as an engine without a registry says it. */
export const PULL_REFUSAL = 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host';

/**
 * A Docker engine API that answers like an engine without any registry: it pings, tells its
 * version and info, holds no image and refuses every pull. Listens on the unix socket `socketPath`;
 * `requests` records each method and path it saw.
 */
export async function startRefusingEngine(socketPath: string): Promise<{ server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').replace(/^\/v\d+\.\d+/, '').split('?')[0] ?? '/';
    requests.push(`${request.method} ${path}`);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    request.resume();
    if (path === '/_ping') return void response.writeHead(200, { 'Content-Type': 'text/plain', 'Api-Version': '1.47' }).end('OK');
    if (path === '/version') return json(200, { Version: '28.2.2', ApiVersion: '1.47', MinAPIVersion: '1.24', Os: 'linux', Arch: 'amd64' });
    if (path === '/info') return json(200, { ID: 'refusing', ServerVersion: '28.2.2', OperatingSystem: 'Debian GNU/Linux 12 (bookworm)', OSType: 'linux', Architecture: 'x86_64', NCPU: 2, MemTotal: 2 ** 34, Labels: [] });
    if (path === '/networks/bridge') return json(200, { Name: 'bridge', Driver: 'bridge', IPAM: { Config: [{ Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' }] } });
    if (path === '/images/create') return json(500, { message: PULL_REFUSAL });
    if (path === '/containers/json' || path === '/images/json' || path === '/networks') return json(200, []);
    json(404, { message: 'No such image' });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  return { server, requests };
}
