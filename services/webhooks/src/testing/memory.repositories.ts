import type { Delivery, Endpoint } from '../domain/endpoint.js';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryRepository } from '../repositories/delivery.repository.js';
import type { EndpointChanges, EndpointRepository } from '../repositories/endpoint.repository.js';

/** The users service as the webhooks rules see it: app owners and the scopes users grant apps. */
export class MemoryAppDirectory implements Pick<AppDirectoryRepository, 'ownerOf' | 'scopesOf'> {
  /** app id → owner (null: an operator's app). */
  readonly owners = new Map<string, string | null>();
  /** `${userId}/${appId}` → scopes. */
  readonly grants = new Map<string, string[]>();
  /** When set, every call fails with it (the users service is down). */
  failure: Error | undefined;

  async ownerOf(appId: string): Promise<string | null | undefined> {
    if (this.failure) throw this.failure;
    return this.owners.get(appId);
  }

  async scopesOf(userId: string, appIds: readonly string[]): Promise<Map<string, string[]>> {
    if (this.failure) throw this.failure;
    return new Map(appIds.flatMap((appId) => {
      const scopes = this.grants.get(`${userId}/${appId}`);
      return scopes ? [[appId, scopes] as [string, string[]]] : [];
    }));
  }
}

/** EndpointRepository in memory (secrets kept as given). */
export class MemoryEndpointRepository implements Pick<EndpointRepository, 'create' | 'find' | 'list' | 'update' | 'delete' | 'rotateSecret'> {
  readonly endpoints = new Map<string, Endpoint & { ownerUserId: string; sealed: Buffer; previousSealed?: Buffer }>();
  #nextId = 1;

  async create(input: { appId: string; ownerUserId: string; url: string; eventTypes: readonly Endpoint['eventTypes'][number][]; active: boolean; sealedSecret: Buffer }, max: number): Promise<Endpoint | undefined> {
    if ((await this.list(input.appId)).length >= max) return undefined;
    const now = new Date();
    const endpoint = { id: String(this.#nextId++), appId: input.appId, ownerUserId: input.ownerUserId, url: input.url, eventTypes: [...input.eventTypes], active: input.active, dateCreated: now, dateModified: now, sealed: input.sealedSecret };
    this.endpoints.set(endpoint.id, endpoint);
    return publicPart(endpoint);
  }

  async find(appId: string, id: string): Promise<Endpoint | undefined> {
    const endpoint = this.endpoints.get(id);
    return endpoint?.appId === appId ? publicPart(endpoint) : undefined;
  }

  async list(appId: string): Promise<Endpoint[]> {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.appId === appId).map(publicPart);
  }

  async update(appId: string, id: string, changes: EndpointChanges): Promise<Endpoint | undefined> {
    const endpoint = this.endpoints.get(id);
    if (endpoint?.appId !== appId) return undefined;
    if (changes.url !== undefined) endpoint.url = changes.url;
    if (changes.eventTypes !== undefined) endpoint.eventTypes = [...changes.eventTypes];
    if (changes.active !== undefined) endpoint.active = changes.active;
    if (changes.active === true) delete endpoint.disabledAt;
    endpoint.dateModified = new Date();
    return publicPart(endpoint);
  }

  async delete(appId: string, id: string): Promise<boolean> {
    return this.endpoints.get(id)?.appId === appId && this.endpoints.delete(id);
  }

  async rotateSecret(appId: string, id: string, sealedSecret: Buffer, previousExpiresAt: Date): Promise<Endpoint | undefined> {
    const endpoint = this.endpoints.get(id);
    if (endpoint?.appId !== appId) return undefined;
    if (previousExpiresAt > new Date()) {
      endpoint.previousSealed = endpoint.sealed;
      endpoint.previousSecretExpiresAt = previousExpiresAt;
    } else {
      delete endpoint.previousSealed;
      delete endpoint.previousSecretExpiresAt;
    }
    endpoint.sealed = sealedSecret;
    return publicPart(endpoint);
  }
}

function publicPart(endpoint: Endpoint & { ownerUserId: string; sealed: Buffer; previousSealed?: Buffer }): Endpoint {
  const { ownerUserId: _owner, sealed: _sealed, previousSealed: _previous, ...rest } = endpoint;
  return { ...rest, eventTypes: [...rest.eventTypes] };
}

/** DeliveryRepository in memory: the log, and what the worker records. */
export class MemoryDeliveryRepository implements Pick<DeliveryRepository, 'list' | 'redeliver' | 'recordSuccess' | 'recordFailure' | 'drop' | 'release' | 'disableEndpoint'> {
  readonly deliveries = new Map<string, Delivery>();
  /** endpoint id → since when it has been failing. */
  readonly failingSince = new Map<string, Date>();
  readonly disabled: string[] = [];

  constructor(private readonly endpoints?: MemoryEndpointRepository) {}

  async list(endpointId: string, options: { status?: Delivery['status']; beforeId?: string; limit: number }): Promise<Delivery[]> {
    return [...this.deliveries.values()]
      .filter((delivery) => delivery.endpointId === endpointId && (options.status === undefined || delivery.status === options.status) && (options.beforeId === undefined || Number(delivery.id) < Number(options.beforeId)))
      .sort((a, b) => Number(b.id) - Number(a.id))
      .slice(0, options.limit);
  }

  async redeliver(endpointId: string, eventId: string): Promise<Delivery | undefined> {
    const delivery = [...this.deliveries.values()].find((candidate) => candidate.endpointId === endpointId && candidate.eventId === eventId);
    if (!delivery) return undefined;
    Object.assign(delivery, { status: 'pending', nextAttemptAt: new Date() });
    return delivery;
  }

  async recordSuccess(claimed: ClaimedDelivery, attempt: AttemptRecord): Promise<void> {
    this.#record(claimed, attempt, 'succeeded', undefined);
    this.failingSince.delete(claimed.endpointId);
  }

  async recordFailure(claimed: ClaimedDelivery, attempt: AttemptRecord, nextAttemptAt: Date | undefined): Promise<Date | undefined> {
    this.#record(claimed, attempt, nextAttemptAt ? 'pending' : 'failed', nextAttemptAt);
    const since = this.failingSince.get(claimed.endpointId) ?? new Date();
    this.failingSince.set(claimed.endpointId, since);
    return since;
  }

  async drop(deliveryId: string): Promise<void> {
    this.deliveries.delete(deliveryId);
  }

  async release(deliveryId: string, retryAt: Date): Promise<void> {
    const delivery = this.deliveries.get(deliveryId);
    if (delivery) delivery.nextAttemptAt = retryAt;
  }

  async disableEndpoint(endpointId: string): Promise<{ appId: string; ownerUserId: string } | undefined> {
    const endpoint = this.endpoints?.endpoints.get(endpointId);
    if (endpoint && !endpoint.active) return undefined;
    if (endpoint) Object.assign(endpoint, { active: false, disabledAt: new Date() });
    this.disabled.push(endpointId);
    for (const delivery of this.deliveries.values()) if (delivery.endpointId === endpointId && delivery.status === 'pending') Object.assign(delivery, { status: 'failed', nextAttemptAt: undefined });
    return { appId: endpoint?.appId ?? '', ownerUserId: endpoint?.ownerUserId ?? '' };
  }

  #record(claimed: ClaimedDelivery, attempt: AttemptRecord, status: Delivery['status'], nextAttemptAt: Date | undefined): void {
    const delivery = this.deliveries.get(claimed.id);
    if (!delivery) return;
    Object.assign(delivery, { status, attempts: delivery.attempts + 1, lastError: attempt.error, lastResponseCode: attempt.responseCode, latencyMs: attempt.latencyMs, lastAttemptAt: new Date(), nextAttemptAt });
  }
}
