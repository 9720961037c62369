export { classifyTrace, classifyBlocks, MAX_CLASSIFIED_TRANSACTIONS, type ClassifyResult, type ClassifyOptions } from './classify.js';
export type { Action } from './action.js';
export { V1_INTERNAL_TYPES } from './action.js';
export type { ClassifierTrace, ContractInterfaces, InterfaceLookup } from './input.js';
export { fromFixtureTrace, type FixtureTrace } from './fixture-adapter.js';
export { MATCHERS } from './matchers/index.js';
export type { ActionMatcher, Matcher, MatchContext } from './matcher.js';
export { checkExpectation, type Expectation } from './golden-match.js';
export { classifyFixtureFile } from './cli-core.js';
