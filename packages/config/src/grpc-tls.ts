import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A PEM file's path, replaced by its text (read once, at boot) once `check` accepts it. */
function pemFile(what: string, check: (pem: string) => void) {
  return z.string().min(1).transform((path, ctx): string => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` });
      return z.NEVER;
    }
    try {
      check(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: `${path} is not ${what}` });
      return z.NEVER;
    }
    return text;
  });
}

/**
 * Variables of gRPC over TLS between Inkwell processes (docs/api/foundation.md, "Internal
 * calls"): files of PEM text, all three or none (none: plaintext, the local default).
 * GRPC_TLS_CERT, the certificate (chain) this process presents as a server and as a client;
 * GRPC_TLS_KEY, its private key; GRPC_TLS_CA, the CA bundle every peer's certificate must chain
 * to. Spread into a process's schema, add `.superRefine(refineGrpcTlsEnv)`, and pass
 * {@link grpcTlsSettings} of the result to `GrpcServer.listen` and `createGrpcClient` (@inkwell/grpc).
 */
export const grpcTlsEnv = {
  GRPC_TLS_CERT: pemFile('a PEM certificate', (pem) => new X509Certificate(pem)).optional(),
  GRPC_TLS_KEY: pemFile('a PEM private key', (pem) => createPrivateKey(pem)).optional(),
  GRPC_TLS_CA: pemFile('a PEM certificate bundle', (pem) => new X509Certificate(pem)).optional(),
};

/**
 * The variable of a gRPC service's plaintext health port (docs/api/foundation.md, "Internal
 * calls"): GRPC_HEALTH_PORT serves `grpc.health.v1.Health` alone, without TLS, for probes that
 * cannot speak it (the kubelet's gRPC probe); 0 (the default) serves no such port.
 */
export const grpcHealthEnv = {
  GRPC_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
};

/** The parsed {@link grpcTlsEnv} variables. */
export interface GrpcTlsEnv {
  GRPC_TLS_CERT?: string | undefined;
  GRPC_TLS_KEY?: string | undefined;
  GRPC_TLS_CA?: string | undefined;
}

/** PEM texts of gRPC over TLS, in the shape `GrpcTls` (@inkwell/grpc) has. */
export interface GrpcTlsSettings {
  cert: string;
  key: string;
  ca: string;
}

/** For `.superRefine` on a schema that spread {@link grpcTlsEnv}: all three files or none, and a key that is the certificate's. */
export function refineGrpcTlsEnv(env: GrpcTlsEnv, ctx: z.RefinementCtx): void {
  const names = ['GRPC_TLS_CERT', 'GRPC_TLS_KEY', 'GRPC_TLS_CA'] as const;
  const given = names.filter((name) => env[name] !== undefined);
  if (given.length > 0 && given.length < names.length) {
    for (const name of names.filter((candidate) => env[candidate] === undefined)) ctx.addIssue({ code: 'custom', path: [name], message: `required with ${given.join(' and ')} (gRPC TLS needs all three files)` });
    return;
  }
  if (env.GRPC_TLS_CERT !== undefined && env.GRPC_TLS_KEY !== undefined && !new X509Certificate(env.GRPC_TLS_CERT).checkPrivateKey(createPrivateKey(env.GRPC_TLS_KEY))) {
    ctx.addIssue({ code: 'custom', path: ['GRPC_TLS_KEY'], message: 'is not the private key of GRPC_TLS_CERT' });
  }
}

/** The TLS material of a parsed configuration that spread {@link grpcTlsEnv}; undefined for plaintext. */
export function grpcTlsSettings(env: GrpcTlsEnv): GrpcTlsSettings | undefined {
  const { GRPC_TLS_CERT: cert, GRPC_TLS_KEY: key, GRPC_TLS_CA: ca } = env;
  return cert === undefined || key === undefined || ca === undefined ? undefined : { cert, key, ca };
}
