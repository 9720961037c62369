export { createLease, LeaseWaitAbortedError, type HeldLease, type Lease, type LeaseLogger, type LeaseObserver, type LeaseOptions, type LeaseState } from './lease.js';
export { keepLease, type Keeper, type KeeperOptions, type RenewalResult } from './keeper.js';
export { standByUntilHeld, type StandbyContext, type StandbyHealth } from './standby.js';
export { heldUntil, leaseTiming, nextAttemptIn, type LeaseTiming } from './timing.js';
