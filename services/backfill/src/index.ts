export { runBackfill, runsOf, type BackfillOptions, type BackfillResult, type LaneResult } from './backfill.js';
export { laneBacklog } from './drained.js';
export { splitRange, type Lane } from './plan.js';
