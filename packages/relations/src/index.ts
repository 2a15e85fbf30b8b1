export { cachedRelationsClient, relationsGenerations, RELATIONS_CACHE_MAX_IDS, RELATIONS_CACHE_MAX_USERS, RELATIONS_MAX_AGE_MS, type RelationsCacheOptions } from './relations-cache.js';
