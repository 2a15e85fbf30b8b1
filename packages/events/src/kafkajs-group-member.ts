import { createRequire } from 'node:module';

/**
 * The part of kafkajs's consumer group (kafkajs/src/consumer/consumerGroup) that
 * {@link keepGroupMemberAcrossRestarts} wraps. Internal to kafkajs: not in its typings.
 */
interface ConsumerGroupInternals {
  /** The connection pool of the one consumer this group belongs to (a new group per restart, the same cluster). */
  cluster: object;
  memberId: string | null;
  joinAndSync(): Promise<unknown>;
  leave(): Promise<unknown>;
}

const require = createRequire(import.meta.url);

/** Whether this process already looked for the class (the wrapping is made once). */
let attempted = false;

/** The member id each consumer (by its cluster) last joined its group with and has not left. */
const lastMemberOf = new WeakMap<object, string>();

/**
 * kafkajs 2.2.4 restarts a crashed consumer (e.g. after its retries against an unreachable broker
 * ran out) with a new consumer group object, which joins as a new member: its old member could
 * not leave the group while the broker was away, so the group coordinator waits for it until its
 * session expires before the new member gets partitions. After a broker restart that is a whole
 * session (10 s for `EventConsumer`) after the broker is back, since the coordinator restarts the
 * session clocks of the members it loads (docs/reliability.md, "Consumers after a broker outage").
 *
 * This wraps that class's `joinAndSync` and `leave` once per process: a consumer rejoins with the
 * member id it had until that member has left. The coordinator then takes the rejoin as its known
 * member coming back and rebalances at once; one that no longer knows the id answers
 * UNKNOWN_MEMBER_ID, and kafkajs itself joins again as a new member. If the installed kafkajs has
 * no such module or methods, nothing is changed (test/broker-outage.test.ts then fails, so an
 * upgrade of kafkajs gets a look here).
 */
export function keepGroupMemberAcrossRestarts(): void {
  if (attempted) return;
  attempted = true;
  let ConsumerGroup: { prototype?: Partial<ConsumerGroupInternals> };
  try {
    ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as { prototype?: Partial<ConsumerGroupInternals> };
  } catch {
    return;
  }
  const prototype = ConsumerGroup.prototype;
  if (prototype === undefined || typeof prototype.joinAndSync !== 'function' || typeof prototype.leave !== 'function') return;
  const joinAndSync = prototype.joinAndSync;
  const leave = prototype.leave;
  prototype.joinAndSync = async function joinAndSyncAsLastMember(this: ConsumerGroupInternals) {
    this.memberId ??= lastMemberOf.get(this.cluster) ?? null;
    const joined = await joinAndSync.call(this);
    if (this.memberId) lastMemberOf.set(this.cluster, this.memberId);
    return joined;
  };
  prototype.leave = async function leaveAndForget(this: ConsumerGroupInternals) {
    // Throws while the broker is away: the member stays in the group, and is remembered.
    const left = await leave.call(this);
    lastMemberOf.delete(this.cluster);
    return left;
  };
}
