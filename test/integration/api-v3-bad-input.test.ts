import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Address, beginCell } from '@ton/core';
import { saveWatermark } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../services/api/src/v3/endpoint.js';
import { V3_ENDPOINTS as ALL_V3_ENDPOINTS } from '../../services/api/src/v3/index.js';
import * as kinds from '../../services/api/src/http/kinds.js';
import type { Param } from '../../services/api/src/http/params.js';
import { SETTING_HEADERS, SETTINGS } from '../../services/api/src/v3/request.js';
import { sourcesTransactions } from '../support/mainnet-sources.js';
import { type ApiUnderTest, startApi } from './api-server.js';
import { LOCALNET_STATES, writeLocalnetStates, writeMainnetBlocks } from './v3-fixture-data.js';

/**
 * Bad input over every v3 endpoint and parameter, generated from the declarations (V3_ENDPOINTS and
 * the parameters' kinds): a new endpoint or parameter is covered without editing this file. What is
 * valid comes from docs/toncenter-v3.md (§1.3 settings, §1.4 typed inputs, §1.5 pagination, §2 per
 * endpoint), not from our parsers. Refused values must answer 422 `{"error": …}` naming the
 * parameter; values the reference accepts must answer 200 (or the endpoint's documented 404).
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/** The index-backed endpoints: the legacy v2-compatible ones (tag api/v2) read the liteserver, so their bad input is covered on the local network (api-v2.test.ts). */
const V3_ENDPOINTS = ALL_V3_ENDPOINTS.filter((e) => e.tag !== 'api/v2');
const database = `tonstream_api_v3_bad_${randomBytes(4).toString('hex')}`;

/** How a value goes on the wire: percent-encoded UTF-8 text, a query fragment as is, or raw bytes. */
type Wire = { text: string } | { encoded: string } | { raw: Buffer };
type Outcome =
  | { is: 'refused' }
  | { is: 'accepted'; why: string }
  /** Refused before any parameter is read (HTTP parser, JSON body): 4xx `{"error": …}`, no parameter to name. */
  | { is: 'unnamed'; why: string };
type Sample = { label: string; wire: Wire; outcome: Outcome };

const REFUSED: Outcome = { is: 'refused' };
const accepted = (why: string): Outcome => ({ is: 'accepted', why });
const RAW_BYTES_WHY = 'RFC 9112: a request target is ASCII; Node refuses raw bytes in it before the API sees a parameter';

// Valid values from independent sources: the fixtures and @ton/core.
const ACCOUNT = LOCALNET_STATES[0].account;
const CORE_ACCOUNT = Address.parseRaw(ACCOUNT);
const TX = sourcesTransactions()[0];
const HASH_BYTES = Buffer.from(TX.hash_hex, 'hex');

/** The reference's rules for one kind of value: a valid one, and values it refuses or accepts. */
type KindRules = {
  valid: string;
  refused: [label: string, text: string][];
  accepted: [label: string, text: string, why: string][];
  /** Set when the reference takes any string: the generic hostile values are accepted, with this reason. */
  anyString?: string;
  /** With anyString: 10 KB strings are accepted too (else refused: the issue's rule for 10 KB values). */
  anyLength?: boolean;
};

const withFlippedChecksum = (friendly: string) => friendly.slice(0, 47) + (friendly[47] === 'A' ? 'B' : 'A');
const friendlyWithFlags = (flags: number) => {
  const bytes = Buffer.from(CORE_ACCOUNT.toString(), 'base64url');
  bytes[0] = flags;
  return bytes.toString('base64url');
};
const ADDRESS_RULES: KindRules = {
  valid: ACCOUNT,
  refused: [
    ['raw, 63 hex digits', ACCOUNT.slice(0, -1)],
    ['raw, 65 hex digits', `${ACCOUNT}0`],
    ['raw, not hex', `0:${'g'.repeat(64)}`],
    ['raw without a workchain', ACCOUNT.slice(2)],
    ['raw, 0x-prefixed hash', `0:0x${ACCOUNT.slice(4)}`],
    ['user-friendly, broken checksum', withFlippedChecksum(CORE_ACCOUNT.toString())],
    ['user-friendly, 47 characters', CORE_ACCOUNT.toString().slice(1)],
    ['user-friendly, 49 characters', `${CORE_ACCOUNT.toString()}A`],
    ['user-friendly, unknown flags', friendlyWithFlags(0x22)],
    ['not an address', 'EQ-not-an-address'],
  ],
  accepted: [
    ['raw, lower case', ACCOUNT.toLowerCase(), '§1.4: raw wc:hex in any case'],
    ['user-friendly bounceable', CORE_ACCOUNT.toString({ bounceable: true }), '§1.4: user-friendly base64url'],
    ['user-friendly non-bounceable', CORE_ACCOUNT.toString({ bounceable: false }), '§1.4: non-bounceable'],
    ['user-friendly test-only', CORE_ACCOUNT.toString({ testOnly: true }), '§1.4: test-only'],
    ['user-friendly standard base64', CORE_ACCOUNT.toString({ urlSafe: false }), '§1.4: + and / are retried as - and _'],
  ],
};

const KIND_RULES = new Map<kinds.Kind<unknown>, KindRules>([
  [kinds.int32, {
    valid: '1',
    refused: [
      ['letters', 'abc'], ['a fraction', '1.5'], ['an exponent', '1e3'], ['hex', '0x10'], ['just over int32', '2147483648'],
      ['just under int32', '-2147483649'], ['huge', '99999999999999999999999'], ['huge negative', '-99999999999999999999999'],
      ['two signs', '--1'], ['a sign alone', '-'], ['digit separators', '1_000'],
    ],
    accepted: [
      ['negative', '-1', '§1.4: int32 is signed'],
      ['int32 minimum', '-2147483648', '§1.4: int32'],
      ['a plus sign', '+7', 'Go strconv.ParseInt takes a sign'],
    ],
  }],
  [kinds.utime, {
    valid: '1700000000',
    refused: [['negative', '-1'], ['letters', 'yesterday'], ['huge', '99999999999999999999999'], ['two dots', '1.2.3'], ['hex', '0x10']],
    accepted: [['a float', '1700000000.9', '§1.4 UtimeType: a float is truncated'], ['zero', '0', '§2.1: uint ≥ 0']],
  }],
  [kinds.uint64, {
    valid: '1',
    refused: [['negative', '-1'], ['just over uint64', '18446744073709551616'], ['huge', '99999999999999999999999'], ['a fraction', '1.5'], ['letters', 'abc'], ['hex', '0x10']],
    accepted: [['uint64 maximum', '18446744073709551615', '§2.1: uint64'], ['zero', '0', '§2.1: ≥ 0']],
  }],
  [kinds.bool, {
    valid: 'true',
    refused: [['yes', 'yes'], ['2', '2'], ['mixed case', 'tRUE'], ['on', 'on']],
    accepted: [['T', 'T', '§1.3: strconv.ParseBool form'], ['False', 'False', '§1.3'], ['0', '0', '§1.3']],
  }],
  [kinds.address, ADDRESS_RULES],
  [kinds.addressNullable, { ...ADDRESS_RULES, accepted: [...ADDRESS_RULES.accepted, ['null', 'null', '§1.4 AccountAddressNullable: the literal null']] }],
  [kinds.hash, {
    valid: TX.hash_base64,
    refused: [
      ['63 hex digits', TX.hash_hex.slice(1)], ['65 hex digits', `${TX.hash_hex}0`], ['0x and 63 hex digits', `0x${TX.hash_hex.slice(1)}`],
      ['64 non-hex characters', 'z'.repeat(64)], ['base64 of 31 bytes', HASH_BYTES.subarray(1).toString('base64')],
      ['base64 of 33 bytes', Buffer.concat([HASH_BYTES, Buffer.of(0)]).toString('base64')], ['base64 with a bad character', `*${TX.hash_base64.slice(1)}`],
    ],
    accepted: [
      ['upper-case hex', TX.hash_hex.toUpperCase(), '§1.4: 64 hex characters'],
      ['0x-prefixed hex', `0x${TX.hash_hex}`, '§1.4: 0x + 64 hex'],
      ['base64url', `${HASH_BYTES.toString('base64url')}=`, '§1.4: 44-character base64url'],
    ],
  }],
  [kinds.shard, {
    valid: '8000000000000000',
    refused: [['letters', 'xyz'], ['17 hex digits', `0x8${'0'.repeat(16)}`], ['below int64', '-9223372036854775809'], ['huge', '99999999999999999999999'], ['a fraction', '1.5'], ['negative hex', '-0x8']],
    accepted: [['int64 minimum in decimal', '-9223372036854775808', '§1.4 ShardId: signed decimal'], ['0x-prefixed hex', '0x8000000000000000', '§1.4: hex with optional 0x']],
  }],
  [kinds.sort, {
    valid: 'asc',
    refused: [['up', 'up'], ['ascending', 'ascending'], ['both directions', 'asc desc']],
    accepted: [['upper case', 'ASC', '§1.5: case-insensitive'], ['a', 'a', '§1.5: a|d'], ['D', 'D', '§1.5']],
  }],
  [kinds.opcode, {
    valid: '0x0f8a7ea5',
    refused: [['letters', 'xyz'], ['9 hex digits', '0x123456789'], ['below int32', '-2147483649'], ['over 32 bits', '4294967296'], ['a fraction', '1.5'], ['0x alone', '0x']],
    accepted: [
      ['negative decimal', '-1', '§1.4 OpcodeType: signed 32-bit decimal'],
      ['upper-case hex', '0x0F8A7EA5', '§1.4: 0x hex'],
      ['hex without 0x', '0f8a7ea5', '§1.4: hex tried first'],
      ['10-digit decimal', '2147483647', '§1.4: not hex (over 8 digits), so signed decimal'],
    ],
  }],
  [kinds.direction, {
    valid: 'in',
    refused: [['both', 'both'], ['upper case', 'IN'], ['comma-joined', 'in,out']],
    accepted: [['out', 'out', '§2.1: in or out']],
  }],
  [kinds.text, {
    valid: 'any text',
    refused: [],
    accepted: [['not an address', 'not an address', '§2.2 /addressBook: any string']],
    anyString: '§2.2 /addressBook takes any string (a row with user_friendly null); api_key goes unchecked to the gateway (§1.2)',
  }],
]);

/** Parameters whose rules the reference gives by name (§1.5 pagination, §1.3 settings), whatever their kind. */
const NAMED_RULES: Record<string, KindRules> = {
  limit: {
    valid: '5',
    refused: [['over the maximum', '1001'], ['huge', '99999999999999999999999'], ['letters', 'ten'], ['a fraction', '10.5']],
    accepted: [['zero', '0', '§1.5: below 1 becomes 1'], ['negative', '-5', '§1.5: below 1 becomes 1'], ['the maximum', '1000', '§1.5: max 1000']],
  },
  offset: {
    valid: '1',
    refused: [['letters', 'abc'], ['a fraction', '1.5'], ['huge', '99999999999999999999999'], ['just over int32', '2147483648'], ['2^53', '9007199254740992']],
    accepted: [['negative', '-1', '§1.5: negative becomes 0'], ['int32 maximum', '2147483647', '§2: offset is int32']],
  },
  x_timeout: {
    valid: '3000',
    refused: [['letters', 'soon'], ['a fraction', '1.5'], ['huge', '99999999999999999999999']],
    accepted: [['over the cap', '60000', '§1.3: capped at 3000 ms']],
  },
  bodies: {
    valid: beginCell().storeUint(0x0f8a7ea5, 32).endCell().toBoc().toString('base64'),
    refused: [],
    accepted: [['hex BoC', beginCell().storeUint(0x0f8a7ea5, 32).endCell().toBoc().toString('hex'), '§2.9: base64 or hex BoC']],
    anyString: '§2.9 /decode: a body that does not decode is answered in its position ({"error": "unknown: …"}), not refused',
    anyLength: true,
  },
};

/** Rules of a parameter; a kind nobody described gets the generic hostile values, all expected refused. */
function rulesOf(name: string, param: Param<unknown>): KindRules {
  const example = param.kind.schema.example;
  return NAMED_RULES[name] ?? KIND_RULES.get(param.kind) ?? { valid: example === undefined ? '1' : String(example), refused: [], accepted: [] };
}

const UNRESERVED = /^[A-Za-z0-9_.~-]$/;
/**
 * Percent-encodes the UTF-8 bytes of `text`. encodeURIComponent throws on a lone surrogate; this
 * writes it as U+FFFD, as the URL standard (and so fetch) does.
 */
const enc = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => (UNRESERVED.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
/** The WTF-8 bytes of a lone surrogate (U+D800): what a careless encoder emits; not UTF-8. */
const LONE_SURROGATE = Buffer.from([0xed, 0xa0, 0x80]);

/** The outcome of a generic hostile value under a kind's rules. */
function hostileOutcome(rules: KindRules, lengthy: boolean): Outcome {
  if (!rules.anyString) return REFUSED;
  return lengthy && !rules.anyLength ? REFUSED : accepted(rules.anyString);
}

/** Values hostile to any parser, built around a valid one. */
function hostile(valid: string): [label: string, wire: Wire, lengthy: boolean][] {
  return [
    ['SQL quote', { text: "' OR 1=1 --" }, false],
    ['SQL after a valid value', { text: `${valid}' OR '1'='1` }, false],
    ['SQL statement after a valid value', { text: `${valid}; DROP TABLE blocks; --` }, false],
    ['a backslash', { text: '\\' }, false],
    ['backslash-quote after a valid value', { text: `${valid}\\'` }, false],
    ['NUL', { encoded: '%00' }, false],
    ['a valid value then NUL', { encoded: `${enc(valid)}%00` }, false],
    ['a valid value then a newline', { encoded: `${enc(valid)}%0A` }, false],
    ['a leading space', { text: ` ${valid}` }, false],
    ['a lone surrogate as WTF-8 bytes (invalid UTF-8)', { encoded: '%ED%A0%80' }, false],
    ['a valid value then a WTF-8 lone surrogate', { encoded: `${enc(valid)}%ED%A0%80` }, false],
    ['an overlong NUL (invalid UTF-8)', { encoded: '%C0%80' }, false],
    ['a lone surrogate as a %u escape', { encoded: '%uD800' }, false],
    // encodeURIComponent throws on it; the URL standard (and fetch) send U+FFFD instead.
    ['a lone surrogate in the string', { text: '\ud800' }, false],
    ['10 KB of letters', { text: 'a'.repeat(10_240) }, true],
    ['a valid value then 10 KB of digits', { text: valid + '9'.repeat(10_240) }, true],
  ];
}

/** The bad (and reference-accepted) values of one parameter, each with the outcome the reference gives. */
function samples(name: string, param: Param<unknown>): Sample[] {
  const rules = rulesOf(name, param);
  const out: Sample[] = [
    ...rules.refused.map(([label, text]) => ({ label, wire: { text }, outcome: REFUSED })),
    ...rules.accepted.map(([label, text, why]) => ({ label, wire: { text }, outcome: accepted(why) })),
  ];
  for (const [label, wire, lengthy] of hostile(rules.valid)) {
    out.push({ label, wire, outcome: hostileOutcome(rules, lengthy) });
  }
  out.push({ label: 'raw lone-surrogate bytes, unescaped', wire: { raw: LONE_SURROGATE }, outcome: { is: 'unnamed', why: RAW_BYTES_WHY } });
  return out;
}

type Answer = { status: number; body: unknown };
/** Every status seen, to check at the end that none was a 5xx. */
const seen: { request: string; status: number }[] = [];

let api: ApiUnderTest;

async function get(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(pathAndQuery, { headers });
}

/** POST with a JSON body given as bytes (so it can hold invalid UTF-8). */
async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(path, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
}

async function send(pathAndQuery: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(`${api.base}${pathAndQuery}`, init);
  const text = await res.text();
  seen.push({ request: `${init.method ?? 'GET'} ${pathAndQuery.slice(0, 200)}`, status: res.status });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the report.
  }
  return { status: res.status, body };
}

/** A request written byte for byte on a socket: what fetch refuses to send (raw non-ASCII, NUL in a header). */
function rawGet(target: Buffer, headerLines: Buffer[] = []): Promise<Answer> {
  const { port } = new URL(api.base);
  const request = Buffer.concat([Buffer.from('GET '), target, Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\n'), ...headerLines.map((h) => Buffer.concat([h, Buffer.from('\r\n')])), Buffer.from('Connection: close\r\n\r\n')]);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      seen.push({ request: target.toString('latin1').slice(0, 200), status });
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, body: JSON.parse(body) as unknown });
      } catch {
        resolve({ status, body });
      }
    });
    socket.write(request);
  });
}

/** The error names `name` as a whole word (so `hash` is not found inside `msg_hash`). */
function namesParameter(error: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_-])${escaped}($|[^A-Za-z0-9_-])`).test(error);
}

/** What is wrong with an answer, given the expected outcome; null when it is right. */
function verdict(answer: Answer, outcome: Outcome, named: string, notFound: boolean): string | null {
  const { status, body } = answer;
  const shown = `${status} ${JSON.stringify(body).slice(0, 160)}`;
  if (status >= 500) return `server error: ${shown}`;
  if (outcome.is === 'unnamed') return status >= 400 && status < 500 && typeof (body as { error?: unknown }).error === 'string' ? null : `expected 4xx {"error": …} (${outcome.why}), got ${shown}`;
  if (outcome.is === 'accepted') return status === 200 || (notFound && status === 404) ? null : `expected 200 (${outcome.why}), got ${shown}`;
  const error = (body as { error?: unknown } | null)?.error;
  if (status !== 422 || typeof error !== 'string' || Object.keys(body as object).length !== 1) return `expected 422 {"error": …}, got ${shown}`;
  return namesParameter(error, named) ? null : `the error does not name "${named}": ${shown}`;
}

/**
 * Query values that make a request to `e` valid, so only the parameter under test can be wrong. When
 * `testing` is one of a pair that excludes each other (EXCLUSIVE), its partner is left out.
 */
function baseline(e: Endpoint, testing?: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, p] of Object.entries(e.params)) if (p.required) values.set(name, rulesOf(name, p).valid);
  for (const [name, value] of Object.entries(HANDLER_BASELINES[e.path] ?? {})) values.set(name, value);
  const partner = testing === undefined ? undefined : exclusivePartner(e, testing);
  if (partner !== undefined) values.delete(partner);
  return values;
}

/** §2.5, §2.7: exactly one of these parameters; with its partner absent, each is required. */
const EXCLUSIVE: Record<string, [string, string]> = {
  '/dns/records': ['wallet', 'domain'],
  '/vesting': ['contract_address', 'wallet_address'],
};
function exclusivePartner(e: Endpoint, name: string): string | undefined {
  const pair = EXCLUSIVE[e.path];
  return pair?.[0] === name ? pair[1] : pair?.[1] === name ? pair[0] : undefined;
}

/** Handler-level rules (§2) a request must meet beyond its required parameters. */
const HANDLER_BASELINES: Record<string, Record<string, string>> = {
  // §2.1: at least one of msg_hash, body_hash, opcode; two, so that emptying one still leaves a valid request.
  '/transactionsByMessage': { msg_hash: TX.hash_base64, body_hash: TX.hash_base64 },
  // §2.8: account or ext_msg_hash; both, for the same reason.
  '/pendingTraces': { account: ACCOUNT, ext_msg_hash: TX.hash_base64 },
  '/pendingActions': { account: ACCOUNT, ext_msg_hash: TX.hash_base64 },
  // /jetton/wallets, /nft/items: more than one jetton_address (collection_address) needs exactly one owner_address;
  // index needs collection_address.
  '/jetton/wallets': { owner_address: ACCOUNT },
  '/nft/items': { owner_address: ACCOUNT, collection_address: ACCOUNT },
  // §2.5, §2.7: exactly one of a pair (EXCLUSIVE); §2.6: at least one filter, both here.
  '/dns/records': { domain: 'foundation.ton' },
  '/vesting': { wallet_address: ACCOUNT },
  '/multisig/wallets': { address: ACCOUNT, wallet_address: ACCOUNT },
  '/multisig/orders': { address: ACCOUNT, multisig_address: ACCOUNT },
};

const queryOf = (values: Map<string, string>, except?: string) =>
  [...values].filter(([k]) => k !== except).map(([k, v]) => `${enc(k)}=${enc(v)}`);
const wireText = (wire: Wire) => ('text' in wire ? enc(wire.text) : 'encoded' in wire ? wire.encoded : '');

/** Sends one sample of `name` (the other parameters at their baseline) and checks the answer. */
async function check(e: Endpoint, name: string, sample: Sample): Promise<string | null> {
  const prefix = `/api/v3${e.path}?${queryOf(baseline(e, name), name).map((q) => `${q}&`).join('')}${enc(name)}=`;
  const answer = 'raw' in sample.wire ? await rawGet(Buffer.concat([Buffer.from(prefix), sample.wire.raw])) : await get(prefix + wireText(sample.wire));
  const problem = verdict(answer, sample.outcome, name, e.notFound !== undefined);
  return problem && `${e.path} ${name} = ${sample.label}: ${problem}`;
}

/** Repeated keys, empty values and list lengths: what the parameter's shape (required, array) decides. */
async function shapeProblems(e: Endpoint, name: string, param: Param<unknown>): Promise<string[]> {
  const rules = rulesOf(name, param);
  // A kind taking any string of any length has no bad value to repeat.
  const bad = rules.refused[0]?.[1] ?? (rules.anyLength ? undefined : 'a'.repeat(10_240));
  const base = queryOf(baseline(e, name), name);
  const path = (values: string[]) => `/api/v3${e.path}?${[...base, ...values.map((v) => `${enc(name)}=${enc(v)}`)].join('&')}`;
  const required = param.required || exclusivePartner(e, name) !== undefined;
  const cases: [label: string, values: string[], outcome: Outcome][] = [['an empty value', [''], required ? REFUSED : accepted('§1.4: an empty value is an absent parameter')]];
  if (bad !== undefined) {
    cases.push(['a valid value, then a bad one', [rules.valid, bad], REFUSED]);
    // toncenter's parser keeps the last value and never reads the first: a bad value must not pass unseen.
    cases.push(['a bad value, then a valid one', [bad, rules.valid], REFUSED]);
  }
  if (param.array) {
    const most = param.maxItems ?? 1000;
    cases.push(['as many values as allowed', Array<string>(most).fill(rules.valid), accepted(`§2: at most ${most} values`)]);
    cases.push(['one value too many', Array<string>(most + 1).fill(rules.valid), REFUSED]);
  } else {
    cases.push(['the same key twice', [rules.valid, rules.valid], accepted('§1.4: a repeated single-valued key takes the last value (gorilla/schema)')]);
  }
  const problems: string[] = [];
  for (const [label, values, outcome] of cases) {
    const problem = verdict(await get(path(values)), outcome, name, e.notFound !== undefined);
    if (problem) problems.push(`${e.path} ${name} = ${label}: ${problem}`);
  }
  return problems;
}

/** Header forms of the settings (§1.3): header-safe values only (fetch sends no control bytes). */
async function headerProblems(e: Endpoint, setting: keyof typeof SETTINGS): Promise<string[]> {
  const header = SETTING_HEADERS[setting];
  const rules = rulesOf(setting, SETTINGS[setting] as Param<unknown>);
  const headerSafe = (t: string) => /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(t);
  const cases: [label: string, value: string, outcome: Outcome][] = [
    ...rules.refused.filter(([, t]) => headerSafe(t)).map(([l, t]): [string, string, Outcome] => [l, t, REFUSED]),
    ...rules.accepted.filter(([, t]) => headerSafe(t)).map(([l, t, why]): [string, string, Outcome] => [l, t, accepted(why)]),
    ...hostile(rules.valid).filter(([, w]) => 'text' in w && headerSafe(w.text)).map(([l, w, lengthy]): [string, string, Outcome] => [l, (w as { text: string }).text, hostileOutcome(rules, lengthy)]),
    // Bytes over 0x7f arrive as latin1 text: the WTF-8 lone surrogate seen as three characters.
    ['raw lone-surrogate bytes', LONE_SURROGATE.toString('latin1'), rules.anyString ? accepted(rules.anyString) : REFUSED],
  ];
  const query = queryOf(baseline(e)).join('&');
  const problems: string[] = [];
  for (const [label, value, outcome] of cases) {
    const problem = verdict(await get(`/api/v3${e.path}?${query}`, { [header]: value }), outcome, header, e.notFound !== undefined);
    if (problem) problems.push(`${e.path} header ${header} = ${label}: ${problem}`);
  }
  const nul = await rawGet(Buffer.from(`/api/v3${e.path}?${query}`), [Buffer.from(`${header}: 1\u00002`, 'latin1')]);
  const problem = verdict(nul, { is: 'unnamed', why: 'RFC 9110: NUL is not allowed in a field value' }, header, false);
  if (problem) problems.push(`${e.path} header ${header} = NUL: ${problem}`);
  return problems;
}

/** Percent-decodes `encoded` as UTF-8 (invalid bytes read as U+FFFD), as a server reads a query value. */
function percentDecode(encoded: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const hex = encoded[i] === '%' ? /^[0-9A-Fa-f]{2}$/.exec(encoded.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(Number.parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(encoded[i]));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The JSON body of a POST: the baseline fields, and `name` set to `value` (an array item for a list). */
function bodyWith(e: Endpoint, name: string, value: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of baseline(e)) if (k !== name) fields[k] = e.params[k].array ? [v] : v;
  return { ...fields, [name]: e.params[name].array ? [value] : value };
}

/**
 * The samples of a parameter as JSON body fields (POST takes the same declarations, §2.9). A JSON
 * string can hold what a URL cannot: NUL and lone surrogates arrive as such; raw bytes in the
 * body are read as UTF-8 with U+FFFD.
 */
async function postProblems(e: Endpoint, name: string, param: Param<unknown>): Promise<string[]> {
  const rules = rulesOf(name, param);
  const problems: string[] = [];
  const path = `/api/v3${e.path}`;
  const mark = '\u0001raw\u0001';
  for (const sample of samples(name, param)) {
    const { wire } = sample;
    let body: Buffer;
    if ('raw' in wire) {
      const [before, after] = JSON.stringify(bodyWith(e, name, mark)).split(JSON.stringify(mark).slice(1, -1));
      body = Buffer.concat([Buffer.from(before), wire.raw, Buffer.from(after)]);
    } else body = Buffer.from(JSON.stringify(bodyWith(e, name, 'text' in wire ? wire.text : percentDecode(wire.encoded))));
    const outcome = 'raw' in wire ? hostileOutcome(rules, false) : sample.outcome;
    const problem = verdict(await post(path, body), outcome, name, e.notFound !== undefined);
    if (problem) problems.push(`POST ${e.path} ${name} = ${sample.label}: ${problem}`);
  }
  const fields = (value: unknown): Record<string, unknown> => ({ ...bodyWith(e, name, null), [name]: value });
  const most = param.maxItems ?? 1000;
  const shapes: [label: string, body: Record<string, unknown>, outcome: Outcome][] = [
    ['null', fields(null), param.required ? REFUSED : accepted('an absent field')],
    ['an object instead of a string', bodyWith(e, name, { value: rules.valid }), REFUSED],
    ...(param.array
      ? ([
          ['a string instead of a list', fields(rules.valid), REFUSED],
          ['as many values as allowed', fields(Array<string>(most).fill(rules.valid)), accepted(`§2: at most ${most} values`)],
          ['one value too many', fields(Array<string>(most + 1).fill(rules.valid)), REFUSED],
        ] as [string, Record<string, unknown>, Outcome][])
      : []),
  ];
  for (const [label, body, outcome] of shapes) {
    const problem = verdict(await post(path, JSON.stringify(body)), outcome, name, e.notFound !== undefined);
    if (problem) problems.push(`POST ${e.path} ${name} = ${label}: ${problem}`);
  }
  return problems;
}

/** Bodies that are no parameter object at all: 4xx `{"error": …}`; unknown fields as unknown query keys. */
async function postBodyProblems(e: Endpoint): Promise<string[]> {
  const path = `/api/v3${e.path}`;
  const base = Object.fromEntries([...baseline(e)].map(([k, v]) => [k, e.params[k].array ? [v] : v]));
  const malformed: [label: string, body: string][] = [
    ['not JSON', "' OR 1=1 --"],
    ['a JSON array', '[]'],
    ['a JSON string', '"opcodes"'],
    ['truncated JSON', '{"'],
    ['8 MB of JSON', JSON.stringify({ ...base, padding: 'a'.repeat(8 * 1024 * 1024) })],
  ];
  const problems: string[] = [];
  for (const [label, body] of malformed) {
    const problem = verdict(await post(path, body), { is: 'unnamed', why: 'not a JSON object of parameters' }, '', false);
    if (problem) problems.push(`POST ${e.path} body ${label}: ${problem}`);
  }
  const required = Object.values(e.params).some((p) => p.required);
  const empty = verdict(await send(path, { method: 'POST' }), required ? { is: 'unnamed', why: 'required fields missing' } : accepted('no fields: every parameter absent'), '', e.notFound !== undefined);
  if (empty) problems.push(`POST ${e.path} without a body: ${empty}`);
  const unknown = JSON.stringify({ ...base, owner_id: 1 });
  const lax = verdict(await post(path, unknown), accepted('§1.4: unknown parameters are ignored'), '', e.notFound !== undefined);
  if (lax) problems.push(`POST ${e.path} unknown field: ${lax}`);
  const strict = verdict(await post(path, unknown, { 'X-Strict-Params': 'true' }), REFUSED, 'owner_id', false);
  if (strict) problems.push(`POST ${e.path} unknown field with X-Strict-Params: ${strict}`);
  return problems;
}

/** Unknown keys: ignored (§1.4), refused naming them with X-Strict-Params: true. */
async function strictProblems(e: Endpoint): Promise<string[]> {
  const names: [label: string, encoded: string, decoded: string][] = [
    ['a misspelt filter', 'owner_id', 'owner_id'],
    ['SQL', enc("' OR 1=1 --"), "' OR 1=1 --"],
    ['NUL', '%00', '\u0000'],
    ['invalid UTF-8', '%ED%A0%80', '\ufffd\ufffd\ufffd'],
    ['10 KB', 'k'.repeat(10_240), 'k'.repeat(10_240)],
  ];
  const query = queryOf(baseline(e)).join('&');
  const problems: string[] = [];
  for (const [label, encoded, decoded] of names) {
    const path = `/api/v3${e.path}?${query}&${encoded}=1`;
    const lax = verdict(await get(path), accepted('§1.4: unknown parameters are ignored'), decoded, e.notFound !== undefined);
    if (lax) problems.push(`${e.path} unknown ${label}: ${lax}`);
    const strict = await get(path, { 'X-Strict-Params': 'true' });
    const error = (strict.body as { error?: unknown }).error;
    // A long name is echoed cut short, like any long value.
    if (strict.status !== 422 || typeof error !== 'string' || !error.includes(decoded.slice(0, 64))) {
      problems.push(`${e.path} unknown ${label} with X-Strict-Params: expected 422 naming it, got ${strict.status} ${JSON.stringify(strict.body).slice(0, 160)}`);
    }
  }
  return problems;
}

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  const mcBlocks = await writeMainnetBlocks(api.store);
  await writeLocalnetStates(api.store, 7);
  const last = Object.values(mcBlocks).reduce((a, b) => (a.seqno > b.seqno ? a : b));
  await saveWatermark(api.store, { mc_seqno: last.seqno, gen_utime: Number(last.gen_utime) });
  await new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache
});

afterAll(() => api?.stop());

describe('v3 bad input, generated from the endpoint declarations', () => {
  it('every endpoint answers its baseline request (so each bad value is the only thing wrong)', async () => {
    for (const e of V3_ENDPOINTS) {
      const r = await get(`/api/v3${e.path}?${queryOf(baseline(e)).join('&')}`);
      expect([200, ...(e.notFound ? [404] : [])], `${e.path}: ${JSON.stringify(r.body).slice(0, 200)}`).toContain(r.status);
    }
  });

  for (const e of V3_ENDPOINTS.filter((x) => (x.methods ?? ['get']).includes('get'))) {
    const params = [...Object.entries(e.params), ...Object.entries(SETTINGS)] as [string, Param<unknown>][];
    describe(`GET ${e.path}`, () => {
      it.each(params.map(([name, p]) => [name, p] as const))('parameter %s: refused values answer 422 naming it, accepted ones 200', async (name, param) => {
        const problems: string[] = [];
        for (const sample of samples(name, param)) {
          const problem = await check(e, name, sample);
          if (problem) problems.push(problem);
        }
        problems.push(...(await shapeProblems(e, name, param)));
        expect(problems).toEqual([]);
      });

      it('setting headers: garbage answers 422 naming the header', async () => {
        const problems: string[] = [];
        for (const setting of Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]) problems.push(...(await headerProblems(e, setting)));
        expect(problems).toEqual([]);
      });

      it('unknown parameters: ignored, or 422 naming them with X-Strict-Params', async () => {
        expect(await strictProblems(e)).toEqual([]);
      });
    });
  }

  for (const e of V3_ENDPOINTS.filter((x) => (x.methods ?? ['get']).includes('post'))) {
    describe(`POST ${e.path}`, () => {
      it.each(Object.entries(e.params))('field %s: refused values answer 422 naming it, accepted ones 200', async (name, param) => {
        expect(await postProblems(e, name, param)).toEqual([]);
      });

      it('bodies that are not an object of fields answer 4xx; unknown fields as unknown parameters', async () => {
        expect(await postBodyProblems(e)).toEqual([]);
      });
    });
  }

  it('/addressBook keys its answer by the exact (decoded) strings sent, hostile ones included', async () => {
    const inputs = ["' OR 1=1 --", '\\', '\u0000', 'not an address'];
    const r = await get(`/api/v3/addressBook?${inputs.map((a) => `address=${enc(a)}`).join('&')}&address=%ED%A0%80`);
    expect(r.status).toBe(200);
    // §1.7: keyed by the strings sent; invalid UTF-8 reads as U+FFFD per byte, as Go's JSON encoder writes it.
    const expected = Object.fromEntries([...inputs, '\ufffd\ufffd\ufffd'].map((a) => [a, { user_friendly: null, domain: null, interfaces: [] }]));
    expect(r.body).toEqual(expected);
  });

  it('a request head over the server limit answers 431 {"error": …}, not a connection reset', async () => {
    // 2000 strings of 256 characters: each allowed, together over any sane request size.
    const r = await get(`/api/v3/addressBook?${Array<string>(2000).fill(`address=${'0'.repeat(256)}`).join('&')}`);
    expect(r.status).toBe(431);
    expect(typeof (r.body as { error?: unknown }).error).toBe('string');
  });

  it('after all of it: no 5xx was ever answered and the server still serves /masterchainInfo', async () => {
    expect(seen.length).toBeGreaterThan(1000);
    expect(seen.filter((s) => s.status >= 500)).toEqual([]);
    const info = await get('/api/v3/masterchainInfo');
    expect(info.status).toBe(200);
    expect((info.body as { last: { workchain: number } }).last.workchain).toBe(-1);
  });
});
