import { credentials, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';

/**
 * The PEM material of gRPC over TLS between Inkwell processes (docs/api/foundation.md, "Internal
 * calls"), parsed from GRPC_TLS_CERT, GRPC_TLS_KEY and GRPC_TLS_CA by `grpcTlsSettings` of
 * @inkwell/config. Mutual: a server presents `cert` and accepts only clients presenting a
 * certificate of `ca`; a client presents `cert` and accepts only a server certificate of `ca`
 * that names the host it dialled.
 */
export interface GrpcTls {
  /** This process's certificate (chain), PEM: its server certificate and the client certificate it presents. */
  readonly cert: string;
  /** The private key of `cert`, PEM. */
  readonly key: string;
  /** The CA bundle, PEM, that every peer's certificate must chain to. */
  readonly ca: string;
}

/** Credentials of a server: plaintext without `tls`; with it, TLS that requires a client certificate of `tls.ca`. */
export function serverCredentials(tls: GrpcTls | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(Buffer.from(tls.ca), [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], true);
}

/** Credentials of a client channel: plaintext without `tls`; with it, TLS presenting `tls.cert` and trusting `tls.ca` only. */
export function channelCredentials(tls: GrpcTls | undefined): ChannelCredentials {
  if (tls === undefined) return credentials.createInsecure();
  return credentials.createSsl(Buffer.from(tls.ca), Buffer.from(tls.key), Buffer.from(tls.cert));
}
