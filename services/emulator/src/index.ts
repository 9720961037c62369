export { createAdmission, type Admission, type AdmissionDecision, type AdmissionOptions } from './admission.js';
export { createProcessor, StoppedError, type ProcessResult, type ProcessorDeps, type ConsumerControl } from './processor.js';
export { createEmulatorService, EMULATOR_GROUP_ID, SWEEP_INTERVAL_MS, type EmulatorService, type EmulatorServiceDeps } from './service.js';
export { createEmulatorMetrics, type EmulatorMetrics } from './metrics.js';
export { EMULATOR_CONFIG, EMULATOR_SERVICE, type EmulatorConfig } from './config.js';
export { startEmulator } from './start.js';
export { removeConfirmedTraces } from './confirmations.js';
