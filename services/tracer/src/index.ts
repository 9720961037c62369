export { createTracer, TRACER_GROUP_ID, type Classify, type TraceToClassify, type Tracer, type TracerDeps } from './tracer.js';
export { createCollector, type Collector, type Consumed, type McGroup } from './collector.js';
export { createStateStore, type StateStore } from './state-store.js';
export { createTracerMetrics, type TracerMetrics } from './metrics.js';
export { TRACER_CONFIG, TRACER_SERVICE, type TracerConfig } from './config.js';
export { startTracer } from './start.js';
