import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configProblems, grpcHealthEnv, grpcTlsEnv, grpcTlsSettings, loadConfig, refineGrpcTlsEnv } from './index.js';

const schema = z.object({ ...grpcTlsEnv, ...grpcHealthEnv }).superRefine(refineGrpcTlsEnv);
const folder = mkdtempSync(join(tmpdir(), 'inkwell-grpc-tls-config-'));

/** A self-signed certificate and its key, made with openssl; returns their paths. */
function selfSigned(name: string): { cert: string; key: string } {
  const cert = join(folder, `${name}.crt`);
  const key = join(folder, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${name}`], { stdio: 'pipe' });
  return { cert, key };
}

const own = selfSigned('inkwell');
const other = selfSigned('other');
const notPem = join(folder, 'not.pem');
writeFileSync(notPem, 'hello\n');

const problems = (env: Record<string, string>): string[] => configProblems(schema, env);

describe('grpcTlsEnv', () => {
  it('is plaintext without a health port by default, as locally', () => {
    const config = loadConfig(schema, {});
    expect(grpcTlsSettings(config)).toBeUndefined();
    expect(config.GRPC_HEALTH_PORT).toBe(0);
  });

  it('reads the certificate, its key and the CA bundle as PEM text', () => {
    const settings = grpcTlsSettings(loadConfig(schema, { GRPC_TLS_CERT: own.cert, GRPC_TLS_KEY: own.key, GRPC_TLS_CA: own.cert, GRPC_HEALTH_PORT: '50050' }));
    expect(settings).toEqual({ cert: expect.stringContaining('BEGIN CERTIFICATE'), key: expect.stringContaining('PRIVATE KEY'), ca: expect.stringContaining('BEGIN CERTIFICATE') });
  });

  it('refuses some of the three files without the others, a key of another certificate, and files that are not PEM', () => {
    expect(problems({ GRPC_TLS_CERT: own.cert, GRPC_TLS_KEY: own.key })).toEqual(['GRPC_TLS_CA: required with GRPC_TLS_CERT and GRPC_TLS_KEY (gRPC TLS needs all three files)']);
    expect(problems({ GRPC_TLS_CERT: own.cert, GRPC_TLS_KEY: other.key, GRPC_TLS_CA: own.cert })).toEqual(['GRPC_TLS_KEY: is not the private key of GRPC_TLS_CERT']);
    expect(problems({ GRPC_TLS_CERT: notPem, GRPC_TLS_KEY: notPem, GRPC_TLS_CA: join(folder, 'missing.pem') })).toEqual([
      `GRPC_TLS_CERT: ${notPem} is not a PEM certificate`,
      `GRPC_TLS_KEY: ${notPem} is not a PEM private key`,
      `GRPC_TLS_CA: cannot read ${join(folder, 'missing.pem')}: ENOENT`,
    ]);
  });
});
