import type { KeyObject } from 'node:crypto';
import { AssertionSigner, AssertionVerifier, type TrustedKeys } from './assertion.js';

/** A process's internal-auth configuration (parsed by `internalAuthEnv` of @inkwell/config). */
export interface InternalAuthSettings {
  /** The key id this process's public key is trusted under. */
  keyId: string;
  /** This process's Ed25519 private key. */
  privateKey: KeyObject;
  /** Issuer → key id → public key, of every issuer this process accepts calls from. */
  trustedKeys: TrustedKeys;
}

/** One process's side of internal authentication: how it signs its calls and verifies the calls it serves. */
export interface InternalAuth {
  /** Signs this process's outgoing calls as `name`: pass it as `signer` to every createGrpcClient. */
  signer: AssertionSigner;
  /** Verifies calls addressed to `name`: pass it as `verifier` to createGrpcServer. */
  verifier: AssertionVerifier;
}

/**
 * The signer and verifier of the process `name` (`gateway`, `users`, …: its issuer name, and
 * for a service also the audience its callers address). Wired once in main.ts
 * (docs/api/foundation.md, "Internal calls").
 */
export function createInternalAuth(name: string, settings: InternalAuthSettings): InternalAuth {
  return {
    signer: new AssertionSigner({ issuer: name, keyId: settings.keyId, privateKey: settings.privateKey }),
    verifier: new AssertionVerifier({ audience: name, trustedKeys: settings.trustedKeys }),
  };
}
