import type { Logger } from '@inkwell/logging';
import { Kafka, logLevel, type ISocketFactory, type KafkaConfig, type LogEntry, type RetryOptions } from 'kafkajs';
import { keepGroupMemberAcrossRestarts } from './kafkajs-group-member.js';
import { stopIdleRequestQueueTimers } from './kafkajs-idle-timers.js';

/** Options of `createKafka`. */
export interface KafkaOptions {
  /** `host:port` list, or the comma-separated KAFKA_BROKERS value. */
  brokers: string | readonly string[];
  /** Names this process in the broker's logs and quotas, e.g. the service name. */
  clientId: string;
  logger: Logger;
  /**
   * Prefix of every topic and consumer group this client touches (KAFKA_NAMESPACE), so that
   * several Inkwell systems can share one broker without reading each other's events — the
   * test suite starts many. Empty in production.
   */
  namespace?: string;
  /** TLS to the brokers, with a CA bundle (PEM text) when not the system's (KAFKA_SSL, KAFKA_SSL_CA_FILE). */
  ssl?: { ca?: string };
  /** SASL authentication (KAFKA_SASL_*; `kafkaSettings` of @inkwell/config gives both). */
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /**
   * Opens the connections to the brokers (default: kafkajs's, to the address each broker
   * advertises). Tests pass one that routes every connection through a proxy they can cut.
   */
  socketFactory?: ISocketFactory;
}

const namespaces = new WeakMap<Kafka, string>();

const subscriptions = new WeakMap<Kafka, Map<string, ReadonlySet<string>>>();

/**
 * Records that the consumer group `groupId` of this process reads `topics` (names as on the
 * broker), so that the consumer lag metrics (`registerEventMetrics`) know what to measure.
 * Called by the consumers of this package when they subscribe.
 */
export function recordSubscription(kafka: Kafka, groupId: string, topics: readonly string[]): void {
  const groups = subscriptions.get(kafka) ?? new Map<string, ReadonlySet<string>>();
  groups.set(groupId, new Set([...(groups.get(groupId) ?? []), ...topics]));
  subscriptions.set(kafka, groups);
}

/** The consumer groups (broker names) this process subscribed through `kafka`, with their topics. */
export function subscriptionsOf(kafka: Kafka): ReadonlyMap<string, ReadonlySet<string>> {
  return subscriptions.get(kafka) ?? new Map();
}

/** The name `topic` (or a consumer group) has on the broker for this client's namespace. */
export function namespaced(kafka: Kafka, name: string): string {
  return `${namespaces.get(kafka) ?? ''}${name}`;
}

/**
 * kafkajs warns about this on every idempotent producer whose retries are bounded. The outbox
 * bounds them on purpose (a send must fail eventually so the transaction holding the rows ends);
 * delivery stays at-least-once because unmarked rows are sent again.
 */
const EXPECTED_WARNINGS = ['Limiting retries for the idempotent producer'];

/**
 * kafkajs logs every refused or timed-out connection at error level, with a stack, about a dozen
 * lines per failed connect. A broker being away is expected (services start and run without it):
 * whoever retries (the consumers, the relay, `startEventWork`) logs one warning per attempt, and
 * these lines go to debug.
 */
const CONNECTION_FAILURES = ['Connection error', 'Connection timeout', 'Failed to connect to seed broker'];

/**
 * kafkajs crashes a consumer whose retries ran out (`Crash: <error name>: <message>`) and, for a
 * retriable error, restarts it (`Restarting the consumer in …`), both at error level. When the
 * cause is a lost broker this is the expected retry of an outage: the crash line becomes the one
 * warning per attempt (without its stack) and the restart line goes to debug. Other crashes stay
 * errors.
 */
const CONSUMER_CRASH = /^Crash: \w+: /;
const CONSUMER_RESTART = 'Restarting the consumer';

/**
 * The cause of a crash kafkajs does not restart when the broker goes away while a consumer rejoins
 * its group (reproduced: a 60 s broker stop under load, docs/reliability.md); the consumer starts
 * again by itself (`EventConsumer`), so it is an outage's warning like a lost connection.
 */
const COORDINATOR_LOST = 'Failed to find group coordinator';

/**
 * The retriable answers of a group coordinator that is not ready yet: after a broker starts (a
 * fresh `npm run dev`, a restart) it loads the consumer offsets before it serves groups, and
 * kafkajs logs each request the broker answers so (a consumer's JoinGroup or OffsetFetch), then
 * crashes the consumer and restarts it. That is expected and recovers by itself within seconds,
 * so those lines are info (one line each, no stack) and the restart line debug. The texts are
 * kafkajs's messages of the Kafka protocol errors GROUP_LOAD_IN_PROGRESS (14),
 * GROUP_COORDINATOR_NOT_AVAILABLE (15) and NOT_COORDINATOR_FOR_GROUP (16), all retriable.
 * (Reproduced: a consumer joining right after a broker restart crashes with the first.)
 */
const COORDINATOR_NOT_READY = [
  "The coordinator is loading and hence can't process requests for this group",
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  // UNKNOWN_MEMBER_ID (25): a consumer rejoining as the member it was ({@link keepGroupMemberAcrossRestarts})
  // after that member's session ended; kafkajs joins again as a new member at once.
  'The coordinator is not aware of this member',
];

/** Where one kafkajs log line goes: the pino level, and whether its stack is dropped. */
export interface KafkaLogRoute {
  level: 'debug' | 'info' | 'warn' | 'error';
  dropStack: boolean;
}

/** kafkajs's line for a request the broker answered with an error (`Response JoinGroup(key: 11, version: 5)`), the error in its `error` field. */
const FAILED_RESPONSE = /^Response \w+\(key: \d+, version: \d+\)$/;

/** Whether a broker's error text is one of {@link COORDINATOR_NOT_READY}. */
function isCoordinatorNotReady(text: string): boolean {
  return COORDINATOR_NOT_READY.some((ready) => text.startsWith(ready));
}

/**
 * How a kafkajs log line of `level` with `message` (and, for a failed request, the broker's
 * `error` text) is logged (see {@link createKafka}): conditions the system expects and recovers
 * from are never errors, and never carry a stack:
 * - an unreachable broker (connection refused or timed out) and the consumer's restart: debug;
 * - a consumer crash over an unreachable broker or a group coordinator lost with it: one warning
 *   (its restart is the recovery);
 * - a group coordinator that is still loading, as a failed request (`Response JoinGroup(…)`,
 *   `Response OffsetFetch(…)`) or as the consumer crash it causes: info;
 * - the producer's warning about bounded idempotent retries: debug;
 * - every other error and warning as it came, info and debug as debug.
 */
export function kafkaLogRoute(level: logLevel, message: string, error?: unknown): KafkaLogRoute {
  if (isConnectionFailure(message) || message.startsWith(CONSUMER_RESTART)) return { level: 'debug', dropStack: true };
  if (FAILED_RESPONSE.test(message) && typeof error === 'string' && isCoordinatorNotReady(error)) return { level: 'info', dropStack: true };
  if (CONSUMER_CRASH.test(message)) {
    const cause = message.replace(CONSUMER_CRASH, '');
    if (isConnectionFailure(cause) || cause.startsWith(COORDINATOR_LOST)) return { level: 'warn', dropStack: true };
    if (isCoordinatorNotReady(cause)) return { level: 'info', dropStack: true };
  }
  if (level === logLevel.ERROR) return { level: 'error', dropStack: false };
  if (level === logLevel.WARN && !EXPECTED_WARNINGS.some((text) => message.startsWith(text))) return { level: 'warn', dropStack: false };
  return { level: 'debug', dropStack: false };
}

/**
 * How every client of `createKafka` (consumers, producers, admin) retries a failed connection or
 * request, also inside tests (kafkajs has other defaults when NODE_ENV is `test`): from 200 ms,
 * doubling, at most 1 s apart, 5 retries (about 3.5 s) before the operation fails. A consumer
 * whose retries ran out is restarted by kafkajs after the last wait (at most 1 s) and rejoins its
 * group as the member it was ({@link keepGroupMemberAcrossRestarts}), so while the broker is away
 * it tries again every second, and catches up within a second or two of the broker's return
 * (kafkajs's default cap, 30 s, made consumers restart 5–15 s apart, and each restart joined as a
 * new member that waited out the old one's session; docs/reliability.md, "Consumers after a
 * broker outage").
 */
export const KAFKA_RETRY: Required<Pick<RetryOptions, 'initialRetryTime' | 'maxRetryTime' | 'retries' | 'factor' | 'multiplier'>> = {
  initialRetryTime: 200,
  maxRetryTime: 1_000,
  retries: 5,
  factor: 0.2,
  multiplier: 2,
};

/** Whether a kafkajs message says a broker could not be reached (see {@link CONNECTION_FAILURES}). */
function isConnectionFailure(message: string): boolean {
  return CONNECTION_FAILURES.some((text) => message.startsWith(text));
}

/**
 * The connection part of the kafkajs client configuration: brokers (trimmed, empty entries
 * dropped), TLS (`true` for the system CAs, or the given CA bundle) and SASL, each only when
 * configured: locally the client is plaintext without authentication.
 */
export function kafkaClientConfig(options: Pick<KafkaOptions, 'brokers' | 'clientId' | 'ssl' | 'sasl'>): Pick<KafkaConfig, 'clientId' | 'brokers' | 'ssl' | 'sasl'> {
  const brokers = typeof options.brokers === 'string' ? options.brokers.split(',') : [...options.brokers];
  const config: Pick<KafkaConfig, 'clientId' | 'brokers' | 'ssl' | 'sasl'> = { clientId: options.clientId, brokers: brokers.map((broker) => broker.trim()).filter(Boolean) };
  if (options.ssl !== undefined) config.ssl = options.ssl.ca === undefined ? true : { ca: [options.ssl.ca] };
  if (options.sasl !== undefined) {
    const { username, password } = options.sasl;
    // One literal per mechanism: kafkajs types each mechanism's options separately.
    config.sasl = options.sasl.mechanism === 'plain' ? { mechanism: 'plain', username, password } : options.sasl.mechanism === 'scram-sha-256' ? { mechanism: 'scram-sha-256', username, password } : { mechanism: 'scram-sha-512', username, password };
  }
  return config;
}

/**
 * Creates the kafkajs client of a process (TLS and SASL as configured, see
 * {@link kafkaClientConfig}). Its log lines go to our pino logger with the kafkajs namespace
 * attached, and only warnings and errors are kept: group joins and connection chatter stay out
 * of the logs. Its connections wake up only for work (see {@link stopIdleRequestQueueTimers}), and
 * its consumers rejoin their groups as the members they were after a crash (see
 * {@link keepGroupMemberAcrossRestarts}).
 */
export function createKafka(options: KafkaOptions): Kafka {
  stopIdleRequestQueueTimers();
  keepGroupMemberAcrossRestarts();
  const logger = options.logger.child({ component: 'kafkajs' });
  const kafka = new Kafka({
    ...kafkaClientConfig(options),
    ...(options.socketFactory ? { socketFactory: options.socketFactory } : {}),
    retry: KAFKA_RETRY,
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = entry.log;
      const route = kafkaLogRoute(entry.level, message, extra.error);
      const { stack, ...rest } = extra as typeof extra & { stack?: unknown };
      const fields = { namespace: entry.namespace, ...rest, ...(route.dropStack || stack === undefined ? {} : { stack }) };
      logger[route.level](fields, message);
    },
  });
  if (options.namespace) namespaces.set(kafka, options.namespace);
  return kafka;
}

/** A topic to create with `ensureTopics`, when the defaults do not fit. */
export interface TopicSpec {
  topic: string;
  numPartitions?: number;
}

/**
 * Creates the topics that do not exist yet (3 partitions unless given, the broker's replication
 * factor) and waits until they have leaders, so a producer or consumer can use them at once.
 * Existing topics are left as they are. Returns the names it created.
 */
export async function ensureTopics(kafka: Kafka, topics: ReadonlyArray<string | TopicSpec>): Promise<string[]> {
  const specs = topics.map((topic) => (typeof topic === 'string' ? { topic } : topic)).map((spec) => ({ ...spec, topic: namespaced(kafka, spec.topic) }));
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((spec) => !existing.has(spec.topic));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((spec) => ({ topic: spec.topic, numPartitions: spec.numPartitions ?? 3 })),
    });
    return missing.map((spec) => spec.topic);
  } finally {
    await admin.disconnect();
  }
}
