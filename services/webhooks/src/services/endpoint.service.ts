import { AppError, ErrorCode } from '@inkwell/errors';
import { DEFAULT_SECRET_GRACE_SECONDS, MAX_ENDPOINTS_PER_APP, type Caller, type Delivery, type DeliveryStatus, type Endpoint } from '../domain/endpoint.js';
import type { EventType } from '../domain/event-types.js';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import type { DeliveryRepository } from '../repositories/delivery.repository.js';
import type { EndpointChanges, EndpointRepository } from '../repositories/endpoint.repository.js';

/** How the service seals new secrets (SecretBox and newSigningSecret in main.ts). */
export interface SecretMaker {
  /** A new secret and its sealed form. */
  create(): { secret: string; sealed: Buffer };
}

/** What the endpoint rules need, already constructed. */
export interface EndpointServiceDeps {
  endpoints: Pick<EndpointRepository, 'create' | 'find' | 'list' | 'update' | 'delete' | 'rotateSecret'>;
  deliveries: Pick<DeliveryRepository, 'list' | 'redeliver'>;
  apps: Pick<AppDirectoryRepository, 'ownerOf'>;
  secrets: SecretMaker;
  /** Why a URL cannot receive deliveries, or undefined when it can (WebhookSender.refusal). */
  urlRefusal: (url: string) => string | undefined;
}

/** A page of a delivery log. */
export interface DeliveryPage {
  deliveries: Delivery[];
  /** Empty on the last page. */
  nextAfter: string;
}

const DEFAULT_PAGE_SIZE = 20;
const CURSOR = /^[1-9][0-9]{0,18}$/;

/**
 * The rules of managing an app's webhook endpoints (docs/api/webhooks.md, "Endpoints", "Who may
 * manage endpoints", "The delivery log"): only the app's owner; at most 10 endpoints per app;
 * URLs that deliveries may reach; secrets shown once.
 */
export class EndpointService {
  constructor(private readonly deps: EndpointServiceDeps) {}

  /** Creates an endpoint; its secret is returned here only. */
  async create(caller: Caller, appId: string, input: { url: string; eventTypes: readonly EventType[]; active: boolean }): Promise<{ endpoint: Endpoint; secret: string }> {
    const ownerUserId = await this.#authorize(caller, appId);
    this.#checkUrl(input.url);
    const { secret, sealed } = this.deps.secrets.create();
    const endpoint = await this.deps.endpoints.create({ appId, ownerUserId, url: input.url, eventTypes: [...new Set(input.eventTypes)], active: input.active, sealedSecret: sealed }, MAX_ENDPOINTS_PER_APP);
    if (!endpoint) {
      const message = `An app has at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints: delete one first.`;
      throw new AppError(ErrorCode.FAILED_PRECONDITION, message, { details: [{ reason: 'limit_reached', detail: message }] });
    }
    return { endpoint, secret };
  }

  async get(caller: Caller, appId: string, id: string): Promise<Endpoint> {
    await this.#authorize(caller, appId);
    return this.#endpoint(appId, id);
  }

  async list(caller: Caller, appId: string): Promise<Endpoint[]> {
    await this.#authorize(caller, appId);
    return this.deps.endpoints.list(appId);
  }

  async update(caller: Caller, appId: string, id: string, changes: EndpointChanges): Promise<Endpoint> {
    await this.#authorize(caller, appId);
    if (changes.url !== undefined) this.#checkUrl(changes.url);
    const eventTypes = changes.eventTypes && [...new Set(changes.eventTypes)];
    const updated = await this.deps.endpoints.update(appId, id, { ...changes, ...(eventTypes ? { eventTypes } : {}) });
    if (!updated) throw AppError.notFound('webhook endpoint');
    return updated;
  }

  async delete(caller: Caller, appId: string, id: string): Promise<void> {
    await this.#authorize(caller, appId);
    if (!(await this.deps.endpoints.delete(appId, id))) throw AppError.notFound('webhook endpoint');
  }

  /** A new secret (returned here only); the previous one keeps signing for `graceSeconds` (default 24 h). */
  async rotateSecret(caller: Caller, appId: string, id: string, graceSeconds = DEFAULT_SECRET_GRACE_SECONDS): Promise<{ endpoint: Endpoint; secret: string }> {
    await this.#authorize(caller, appId);
    const { secret, sealed } = this.deps.secrets.create();
    const endpoint = await this.deps.endpoints.rotateSecret(appId, id, sealed, new Date(Date.now() + graceSeconds * 1000));
    if (!endpoint) throw AppError.notFound('webhook endpoint');
    return { endpoint, secret };
  }

  /** One page of the endpoint's delivery log, newest first. */
  async deliveries(caller: Caller, appId: string, endpointId: string, options: { status?: DeliveryStatus; pageSize: number; after: string }): Promise<DeliveryPage> {
    await this.#authorize(caller, appId);
    if (options.after !== '' && !CURSOR.test(options.after)) throw AppError.badParameter('page[cursor]', 'The cursor is not one this API issued.', 'invalid_cursor');
    await this.#endpoint(appId, endpointId);
    const limit = options.pageSize === 0 ? DEFAULT_PAGE_SIZE : options.pageSize;
    const rows = await this.deps.deliveries.list(endpointId, { ...(options.status ? { status: options.status } : {}), ...(options.after === '' ? {} : { beforeId: options.after }), limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { deliveries: page, nextAfter: rows.length > limit ? page.at(-1)!.id : '' };
  }

  /** Queues one event of the endpoint's log again, due now. */
  async redeliver(caller: Caller, appId: string, endpointId: string, eventId: string): Promise<Delivery> {
    await this.#authorize(caller, appId);
    const endpoint = await this.#endpoint(appId, endpointId);
    if (!endpoint.active) {
      const message = 'The endpoint is not active: activate it first.';
      throw new AppError(ErrorCode.FAILED_PRECONDITION, message, { details: [{ reason: 'endpoint_inactive', detail: message }] });
    }
    const delivery = await this.deps.deliveries.redeliver(endpointId, eventId);
    if (!delivery) throw AppError.notFound('delivery');
    return delivery;
  }

  /**
   * docs/api/webhooks.md, "Who may manage endpoints": only the app's owner; an app that does not
   * exist or is not the caller's is NOT_FOUND. That the caller is a signed-in user acting without
   * an app (first-party) is the RPCs' access option, checked before any handler.
   */
  async #authorize(caller: Caller, appId: string): Promise<string> {
    if (caller.userId === undefined) throw AppError.forbidden('Managing webhooks needs a signed-in user.');
    const owner = await this.deps.apps.ownerOf(appId);
    if (owner !== caller.userId) throw AppError.notFound('app');
    return owner;
  }

  async #endpoint(appId: string, id: string): Promise<Endpoint> {
    const endpoint = await this.deps.endpoints.find(appId, id);
    if (!endpoint) throw AppError.notFound('webhook endpoint');
    return endpoint;
  }

  #checkUrl(url: string): void {
    const refusal = this.deps.urlRefusal(url);
    if (refusal !== undefined) throw AppError.validation('/data/attributes/url', refusal);
  }
}
