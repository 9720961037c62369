import { TonstreamError } from '@tonstream/errors';
import { normalizeAddress, normalizeTraceHash } from './address.js';
import { parseCursor, type Cursor } from './cursor.js';

/** Types a client may list in `types` (reference §3). */
export const SUBSCRIBABLE_TYPES = ['transactions', 'actions', 'trace', 'account_state_change', 'jettons_change'] as const;
export type SubscribableType = (typeof SUBSCRIBABLE_TYPES)[number];
export type Finality = 'pending' | 'confirmed' | 'finalized';
export const FINALITY_RANK: Record<Finality, number> = { pending: 0, confirmed: 1, finalized: 2 };

/** One connection's subscription, normalised (addresses raw upper case, trace hashes standard base64). */
export type Subscription = {
  types: Set<SubscribableType>;
  addresses: Set<string>;
  traceHashes: Set<string>;
  /** Default `finalized`. */
  minFinality: Finality;
  /** Default false. */
  includeAddressBook: boolean;
  /** Default false. */
  includeMetadata: boolean;
  /** null: no filter (the default). */
  actionTypes: Set<string> | null;
  /** Default `["latest"]` (or the `X-Actions-Version` header); kept as given. */
  supportedActionTypes: string[];
};

/** What one subscription request (SSE body or WS `subscribe`) says; absent fields are undefined. */
export type SubscriptionRequest = {
  id?: string;
  types: SubscribableType[];
  addresses: string[];
  traceHashes: string[];
  minFinality?: Finality;
  includeAddressBook?: boolean;
  includeMetadata?: boolean;
  actionTypes?: string[];
  supportedActionTypes?: string[];
  /** tonstream extension (§13): resume after this cursor. */
  resumeFrom?: Cursor;
};

export type Transport = 'sse' | 'ws';
export type Parsed<T> = { ok: true; value: T } | { ok: false; id?: string; error: string };

/** Subscription defaults: what a WS connection has before its first `subscribe`. */
export function emptySubscription(supportedActionTypes: string[] = ['latest']): Subscription {
  return { types: new Set(), addresses: new Set(), traceHashes: new Set(), minFinality: 'finalized', includeAddressBook: false, includeMetadata: false, actionTypes: null, supportedActionTypes };
}

class DecodeError extends TonstreamError {
  readonly code = 'SUBSCRIPTION_INVALID';
}

/** Go's JSON decoder matches keys case-insensitively; the exact spelling wins when both are present. */
function field(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  for (const k of Object.keys(obj)) if (k.toLowerCase() === name) return obj[k];
  return undefined;
}

function strings(obj: Record<string, unknown>, name: string): string[] | undefined {
  const v = field(obj, name);
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new DecodeError(`${name}: expected an array of strings`);
  return v as string[];
}

function bool(obj: Record<string, unknown>, name: string): boolean | undefined {
  const v = field(obj, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new DecodeError(`${name}: expected true or false`);
  return v;
}

function optionalString(obj: Record<string, unknown>, name: string): string | undefined {
  const v = field(obj, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new DecodeError(`${name}: expected a string`);
  return v;
}

const unique = <T>(xs: T[]) => [...new Set(xs)];

/**
 * Checks a subscription in the reference's order and wording (§3): SSE and WS differ only in two
 * messages and the decode-error prefix. `maxAddresses` bounds one request (the per-key limit is the
 * caller's). `lastEventId` is the SSE `Last-Event-ID` header, a resume cursor like `resume_from`.
 */
export function parseSubscription(value: unknown, transport: Transport, maxAddresses: number, lastEventId?: string): Parsed<SubscriptionRequest> {
  const prefix = transport === 'sse' ? 'invalid subscription request' : 'invalid subscribe request';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: `${prefix}: expected a JSON object` };
  const obj = value as Record<string, unknown>;
  let id: string | undefined;
  let raw: { types?: string[]; addresses?: string[]; hashes?: string[]; minFinality?: string; ab?: boolean; md?: boolean; at?: string[]; sat?: string[]; resume?: string };
  try {
    id = optionalString(obj, 'id');
    raw = {
      types: strings(obj, 'types'),
      addresses: strings(obj, 'addresses'),
      hashes: strings(obj, 'trace_external_hash_norms'),
      minFinality: optionalString(obj, 'min_finality'),
      ab: bool(obj, 'include_address_book'),
      md: bool(obj, 'include_metadata'),
      at: strings(obj, 'action_types'),
      sat: strings(obj, 'supported_action_types'),
      resume: optionalString(obj, 'resume_from'),
    };
    if (raw.minFinality !== undefined && !['pending', 'confirmed', 'finalized'].includes(raw.minFinality)) throw new DecodeError(`unknown finality state: ${raw.minFinality}`);
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, ...(id === undefined ? {} : { id }), error: `${prefix}: ${err.message}` };
    throw err;
  }
  const fail = (error: string): Parsed<SubscriptionRequest> => ({ ok: false, ...(id === undefined ? {} : { id }), error });

  // trace_invalidated is listed as requestable in the docs but delivered automatically (§10): accepted and ignored.
  const listed = (raw.types ?? []).filter((t) => t !== 'trace_invalidated');
  if (listed.length === 0) return fail(transport === 'sse' ? 'types are required for subscription' : 'types are required');
  for (const t of listed) if (!(SUBSCRIBABLE_TYPES as readonly string[]).includes(t)) return fail(`invalid event type: ${t.slice(0, 100)}`);
  const types = unique(listed) as SubscribableType[];

  const given = raw.addresses ?? [];
  if (given.length > maxAddresses) return fail(transport === 'sse' ? `too many addresses: ${given.length} > max ${maxAddresses}` : `address limit exceeded: current 0 + new ${given.length} > max ${maxAddresses}`);
  const addresses: string[] = [];
  for (const a of given) {
    const n = normalizeAddress(a);
    if (n === null) return fail(`invalid address: ${a.slice(0, 100)}`);
    addresses.push(n);
  }
  const hashes = raw.hashes ?? [];
  if (hashes.some((h) => h.trim() === '')) return fail('trace_external_hash_norms contains empty value');
  const wantsTrace = types.includes('trace');
  if (hashes.length > 0 && !wantsTrace) return fail('trace_external_hash_norms requires type "trace"');
  if (wantsTrace && hashes.length === 0) return fail('trace_external_hash_norms are required for trace subscription');
  if (types.some((t) => t !== 'trace') && addresses.length === 0) return fail(transport === 'sse' ? 'addresses are required for subscription' : 'addresses are required');

  const resumeText = raw.resume ?? lastEventId;
  let resumeFrom: Cursor | undefined;
  if (resumeText !== undefined && resumeText.trim() !== '') {
    const c = parseCursor(resumeText);
    if (c === null) return fail(`invalid resume_from: ${resumeText.slice(0, 100)} is not a cursor of this server`);
    resumeFrom = c;
  }
  return {
    ok: true,
    value: {
      ...(id === undefined ? {} : { id }),
      types,
      addresses: unique(addresses),
      traceHashes: unique(hashes.map(normalizeTraceHash)),
      ...(raw.minFinality === undefined ? {} : { minFinality: raw.minFinality as Finality }),
      ...(raw.ab === undefined ? {} : { includeAddressBook: raw.ab }),
      ...(raw.md === undefined ? {} : { includeMetadata: raw.md }),
      ...(raw.at === undefined ? {} : { actionTypes: unique(raw.at) }),
      ...(raw.sat === undefined ? {} : { supportedActionTypes: unique(raw.sat) }),
      ...(resumeFrom === undefined ? {} : { resumeFrom }),
    },
  };
}

/**
 * The subscription after a request, as the Go server applies it (§5): addresses, hashes and types are
 * replaced; `min_finality` and the includes keep their previous values when omitted; the action type
 * lists are replaced only when non-empty. SSE starts from `emptySubscription()`.
 */
export function applySubscription(prev: Subscription, req: SubscriptionRequest): Subscription {
  return {
    types: new Set(req.types),
    addresses: new Set(req.addresses),
    traceHashes: new Set(req.traceHashes),
    minFinality: req.minFinality ?? prev.minFinality,
    includeAddressBook: req.includeAddressBook ?? prev.includeAddressBook,
    includeMetadata: req.includeMetadata ?? prev.includeMetadata,
    actionTypes: req.actionTypes && req.actionTypes.length > 0 ? new Set(req.actionTypes) : prev.actionTypes,
    supportedActionTypes: req.supportedActionTypes && req.supportedActionTypes.length > 0 ? req.supportedActionTypes : prev.supportedActionTypes,
  };
}

export type UnsubscribeRequest = { id?: string; addresses: string[]; traceHashes: string[] };

export function parseUnsubscribe(obj: Record<string, unknown>): Parsed<UnsubscribeRequest> {
  let id: string | undefined;
  let addresses: string[];
  let hashes: string[];
  try {
    id = optionalString(obj, 'id');
    addresses = strings(obj, 'addresses') ?? [];
    hashes = strings(obj, 'trace_external_hash_norms') ?? [];
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, ...(id === undefined ? {} : { id }), error: `invalid unsubscribe request: ${err.message}` };
    throw err;
  }
  const fail = (error: string): Parsed<UnsubscribeRequest> => ({ ok: false, ...(id === undefined ? {} : { id }), error });
  if (addresses.length === 0 && hashes.length === 0) return fail('addresses or trace_external_hash_norms are required');
  const raw: string[] = [];
  for (const a of addresses) {
    const n = normalizeAddress(a);
    if (n === null) return fail(`invalid address: ${a.slice(0, 100)}`);
    raw.push(n);
  }
  if (hashes.some((h) => h.trim() === '')) return fail('trace_external_hash_norms contains empty value');
  return { ok: true, value: { ...(id === undefined ? {} : { id }), addresses: unique(raw), traceHashes: unique(hashes.map(normalizeTraceHash)) } };
}

/** A WS client frame: the envelope `{operation, id?}` and the object itself. */
export type Envelope = { operation: string; id?: string; body: Record<string, unknown> };

export function parseEnvelope(text: string): Parsed<Envelope> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `invalid request envelope: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'invalid request envelope: expected a JSON object' };
  const body = value as Record<string, unknown>;
  const id = field(body, 'id');
  if (id !== undefined && id !== null && typeof id !== 'string') return { ok: false, error: 'invalid request envelope: id: expected a string' };
  const op = field(body, 'operation');
  return { ok: true, value: { operation: typeof op === 'string' ? op : '', ...(typeof id === 'string' ? { id } : {}), body } };
}
