export { ConfigError, loadConfig, defaultFrom, str, int, bool, oneOf, url, hostPorts, type ConfigOf, type Field, type Fields } from './config.js';
export { clickhouseFields, hotTierFields, hotTierOptions, kafkaFields, logFields, metricsFields, redisFields } from './fields.js';
export { renderEnvTable } from './env-table.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, type LogFields } from './logger.js';
export { combineHealth, createRegistry, HEALTH_LEVELS, HEALTH_METRIC, startMetricsServer, type HealthStatus } from './metrics.js';
export { runService, serviceSpec, type ServiceConfig, type ServiceContext, type ServiceSpec, type StartService } from './service.js';
export { createShutdown, SHUTDOWN_TIMEOUT_MS, type Shutdown } from './shutdown.js';
export { createStopSteps, type Stop, type StopSteps } from './stop-steps.js';
export { createLiteQueryMetrics, type LiteQueryEvent, type LiteQueryMetrics } from './lite-metrics.js';
