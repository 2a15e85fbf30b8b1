export { runService, type RunServiceOptions, type ServiceConfig, type ServiceParts, type ServiceWiring } from './run-service.js';
