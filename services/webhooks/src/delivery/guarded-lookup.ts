import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { AddressPolicy } from './address-guard.js';

/** Resolves a host name to every address it has (dns.lookup with `all: true`, or a test's own resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo), every address. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** The `lookup` callback shape of net.connect / http.request (with or without `all`). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** The error of a connection the guard refused: no byte was sent. */
export class AddressRefusedError extends Error {
  readonly code = 'EADDRREFUSED';
  constructor(readonly host: string, readonly address: string) {
    super(`refused to connect to ${host}: ${address} is not a public address`);
  }
}

/**
 * The `lookup` of every outbound delivery connection (docs/api/webhooks.md, "Outbound safety"):
 * resolves the host with `resolve` and refuses the whole name (AddressRefusedError, before any
 * connection is opened) when any of its addresses is not allowed by `policy`, so that the address
 * connected to is always one that was checked (no second resolution in between).
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = family === undefined ? resolved : resolved.filter((entry) => entry.family === family);
        const refused = addresses.find((entry) => !policy.allowsAddress(hostname, entry.address));
        if (refused) return callback(new AddressRefusedError(hostname, refused.address), []);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
