import type { Redis } from 'ioredis';

/**
 * A Lua script as a function of its keys and arguments, run with one round trip (EVALSHA through
 * ioredis `defineCommand`, EVAL when Redis does not know it yet). The script is defined once per
 * client under `name`, however many objects ask for it.
 */
export function luaScript<R>(redis: Redis, name: string, numberOfKeys: number, lua: string): (...keysAndArgs: (string | number)[]) => Promise<R> {
  const commands = redis as unknown as Record<string, ((...args: (string | number)[]) => Promise<R>) | undefined>;
  if (commands[name] === undefined) redis.defineCommand(name, { numberOfKeys, lua });
  return (commands[name] as (...args: (string | number)[]) => Promise<R>).bind(redis);
}
