import { timingSafeEqual } from 'node:crypto';
import { DOCS_CLIENT, docsClientRedirectUri, generateToken, hashToken } from '@inkwell/auth-tokens';
import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import { allowedOriginProblem, CLIENT_LIMITS, newClientId, redirectUriProblem, type OAuthClient } from '../domain/oauth.js';
import { isUserId } from '../domain/user.js';
import type { OAuthClientRepository } from '../repositories/oauth-client.repository.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import type { UserLookup } from '../repositories/user.repository.js';
import { limitReached } from './limit-reached.error.js';

/** What it takes to register a client. */
export interface ClientRegistration {
  /** Undefined for a client created by the operator. */
  ownerUserId?: string;
  name: string;
  redirectUris: readonly string[];
  /** Web origins of a browser app (none when left out). */
  allowedOrigins?: readonly string[];
  confidential: boolean;
}

/** A new client and, for confidential clients, its secret: shown this once, never stored in plaintext. */
export interface CreatedClient {
  client: OAuthClient;
  secret?: string;
}

/** What the client rules read and write of clients: OAuthClientRepository, or a memory store in unit tests. */
export type ClientStore = Pick<OAuthClientRepository, 'create' | 'findWithSecret' | 'setSecretHash' | 'listByOwner' | 'delete' | 'ensurePublic' | 'isOriginRegistered'>;

/** Unknown client, public client or wrong secret: one answer for all (RFC 6749 §5.2 invalid_client). */
function invalidClient(): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, 'Client authentication failed.', { details: [{ reason: 'invalid_client' }] });
}

/** The rules about OAuth clients ("applications"): registration, secrets, deletion. */
export class OAuthClientService {
  constructor(
    private readonly clients: ClientStore,
    private readonly users: UserLookup,
    private readonly notifier: RevocationNotifier,
  ) {}

  /**
   * Registers a client: the name (1–100 characters, stored trimmed) and the number of redirect
   * URIs (1–10) are CreateClientRequest's rules; here each URI must be valid by
   * redirectUriProblem and distinct, and so must each allowed origin be by allowedOriginProblem
   * (at most 10: the request's rule). Confidential clients get a secret (`iwk_cs_…`), returned
   * here only; its sha256 is stored. An owner may own at most CLIENT_LIMITS.maxPerOwner clients:
   * one more is FAILED_PRECONDITION `limit_reached`. An unknown owner is NOT_FOUND.
   */
  async create(registration: ClientRegistration): Promise<CreatedClient> {
    const name = registration.name.trim();
    const details: ErrorDetail[] = [];
    const uris = registration.redirectUris;
    uris.forEach((uri, index) => {
      const problem = redirectUriProblem(uri) ?? (uris.indexOf(uri) !== index ? 'This redirect URI is listed twice.' : undefined);
      if (problem !== undefined) details.push({ reason: 'validation_failed', pointer: `/data/attributes/redirect_uris/${index}`, detail: problem });
    });
    const origins = registration.allowedOrigins ?? [];
    origins.forEach((origin, index) => {
      const problem = allowedOriginProblem(origin) ?? (origins.indexOf(origin) !== index ? 'This origin is listed twice.' : undefined);
      if (problem !== undefined) details.push({ reason: 'validation_failed', pointer: `/data/attributes/allowed_origins/${index}`, detail: problem });
    });
    if (details.length > 0) throw new AppError(ErrorCode.INVALID_ARGUMENT, details[0]!.detail!, { details });
    if (registration.ownerUserId !== undefined && (!isUserId(registration.ownerUserId) || !(await this.users.findById(registration.ownerUserId)))) {
      throw AppError.notFound('user');
    }
    const secret = registration.confidential ? generateToken('clientSecret') : undefined;
    const client = await this.clients.create(
      {
        id: newClientId(),
        name,
        redirectUris: [...uris],
        allowedOrigins: [...origins],
        confidential: registration.confidential,
        ...(secret === undefined ? {} : { secretHash: hashToken(secret) }),
        ...(registration.ownerUserId === undefined ? {} : { ownerUserId: registration.ownerUserId }),
      },
      CLIENT_LIMITS.maxPerOwner,
    );
    if (client === undefined) {
      throw limitReached(`You already own ${CLIENT_LIMITS.maxPerOwner} applications, the most one user can have. Delete one you no longer use first.`);
    }
    return secret === undefined ? { client } : { client, secret };
  }

  /**
   * Replaces the secret of confidential client `id` and returns the new one (shown this once);
   * the old secret stops working at once. NOT_FOUND for an unknown client, INVALID_ARGUMENT for
   * a public one.
   */
  async rotateSecret(id: string): Promise<string> {
    const found = await this.clients.findWithSecret(id);
    if (!found) throw AppError.notFound('client');
    if (!found.client.confidential) throw new AppError(ErrorCode.INVALID_ARGUMENT, 'A public client has no secret.', { details: [{ reason: 'invalid_request' }] });
    const secret = generateToken('clientSecret');
    await this.clients.setSecretHash(id, hashToken(secret));
    return secret;
  }

  /**
   * Makes the client of the API reference page exist (DOCS_CLIENT: public, owned by nobody) with
   * its one redirect URI under `publicBaseUrl`, the gateway's PUBLIC_BASE_URL; run at every start,
   * it creates the client or corrects it in place (docs/api/reference.md, "Try it: Authorize").
   */
  async ensureDocsClient(publicBaseUrl: string): Promise<OAuthClient> {
    const redirectUri = docsClientRedirectUri(publicBaseUrl);
    const problem = redirectUriProblem(redirectUri);
    if (problem !== undefined) throw new Error(`PUBLIC_BASE_URL ${publicBaseUrl} gives the docs client no valid redirect URI: ${problem}`);
    return this.clients.ensurePublic({ id: DOCS_CLIENT.id, name: DOCS_CLIENT.name, redirectUris: [redirectUri], allowedOrigins: [] });
  }

  /**
   * Whether any client allows `origin` (a CORS preflight's question). A value that is no
   * well-formed origin is allowed by none, without a query.
   */
  async isOriginRegistered(origin: string): Promise<boolean> {
    if (allowedOriginProblem(origin) !== undefined) return false;
    return this.clients.isOriginRegistered(origin);
  }

  /** The clients `ownerUserId` registered, oldest first; none without an owner. */
  async list(ownerUserId: string | undefined): Promise<OAuthClient[]> {
    return ownerUserId !== undefined && isUserId(ownerUserId) ? this.clients.listByOwner(ownerUserId) : [];
  }

  /** The client `id`; NOT_FOUND when there is none. */
  async get(id: string): Promise<OAuthClient> {
    const found = await this.clients.findWithSecret(id);
    if (!found) throw AppError.notFound('client');
    return found.client;
  }

  /**
   * Deletes client `id` (when `ownerUserId` is given, only that user's client: anyone else's is
   * NOT_FOUND, as if it did not exist), with every code and token issued to it; gateways are told
   * to drop its access tokens at once.
   */
  async delete(id: string, ownerUserId: string | undefined): Promise<void> {
    if (ownerUserId !== undefined && !isUserId(ownerUserId)) throw AppError.notFound('client');
    const result = await this.clients.delete(id, ownerUserId);
    if (!result.deleted) throw AppError.notFound('client');
    await this.notifier.notify(result.revokedTokenHashes);
  }

  /**
   * The confidential client `id` if `secret` is its secret. The comparison is of sha256 digests
   * with timingSafeEqual, so it takes the same time wherever the first wrong character is.
   */
  async verifySecret(id: string, secret: string): Promise<OAuthClient> {
    const found = id === '' ? undefined : await this.clients.findWithSecret(id);
    const presented = Buffer.from(hashToken(secret), 'hex');
    const stored = Buffer.from(found?.secretHash ?? hashToken(`no secret for ${id}`), 'hex');
    const matches = timingSafeEqual(presented, stored);
    if (!found || found.secretHash === undefined || !matches) throw invalidClient();
    return found.client;
  }
}
