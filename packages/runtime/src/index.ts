export { ConfigError, loadConfig, str, int, bool, oneOf, url, hostPorts, type Field, type Spec } from './config.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, type LogFields } from './logger.js';
export { combineHealth, createRegistry, HEALTH_LEVELS, HEALTH_METRIC, startMetricsServer, type HealthStatus } from './metrics.js';
export { createShutdown, SHUTDOWN_TIMEOUT_MS, type Shutdown } from './shutdown.js';
export { createLiteQueryMetrics, type LiteQueryEvent, type LiteQueryMetrics } from './lite-metrics.js';
