import { HttpError } from '../http/http-error.js';
import * as kinds from '../http/kinds.js';
import { DEFAULT_LIMIT, echo, MAX_TIMEOUT_MS, optional, type Param, type Params, type ParsedParams, queryValues, readParams, type RequestDefaults } from '../http/params.js';
import { actionType } from './traces/action-types.js';

/**
 * Request settings every v3 endpoint takes, as a header or the query parameter of the same name
 * (the header wins; docs/toncenter-v3.md §1.3).
 */
export const SETTINGS = {
  x_timeout: optional(kinds.intRange(1, 2 ** 31 - 1), 'Query timeout in ms (header X-Timeout); capped at 3000.'),
  x_no_address_book: optional(kinds.bool, 'Answer `address_book` as {} (header X-No-Address-Book).'),
  x_no_metadata: optional(kinds.bool, 'Answer `metadata` as {} (header X-No-Metadata).'),
  api_key: optional(kinds.text, 'API key (header X-API-Key); checked when the instance runs with API_RATE_LIMIT=on.'),
  x_actions_version: optional(actionType, 'One action type or shortcut (v1..v4, latest) replacing supported_action_types on /actions, /traces and the pending ones (header X-Actions-Version).'),
} satisfies Params;

/** `actionsVersion`: X-Actions-Version, which replaces a request's supported_action_types. */
export type Settings = { timeoutMs: number; noAddressBook: boolean; noMetadata?: boolean; actionsVersion?: string };

/** The header of each setting; a header wins over the query parameter. */
export const SETTING_HEADERS: Record<keyof typeof SETTINGS, string> = {
  x_timeout: 'X-Timeout',
  x_no_address_book: 'X-No-Address-Book',
  x_no_metadata: 'X-No-Metadata',
  api_key: 'X-API-Key',
  x_actions_version: 'X-Actions-Version',
};

/**
 * Parses a request's parameters against a declaration (plus SETTINGS): from the query, or from the
 * values of a POST endpoint's JSON body (json-body.ts). With `strict`, a key that neither declares
 * is refused, naming it.
 */
export function parseRequest<P extends Params>(
  params: P,
  search: URLSearchParams | Map<string, string[]>,
  headers: Record<string, string | string[] | undefined>,
  strict: boolean,
  defaults: RequestDefaults = { limit: DEFAULT_LIMIT },
): { params: ParsedParams<P>; settings: Settings } {
  const values = search instanceof URLSearchParams ? queryValues(search) : search;
  if (strict) {
    for (const key of values.keys()) {
      if (!Object.hasOwn(params, key) && !Object.hasOwn(SETTINGS, key)) throw new HttpError(422, `unknown parameter "${echo(key)}"`);
    }
  }
  const parsed = readParams(params, values, defaults);
  const setting = <V>(name: keyof typeof SETTINGS, param: Param<V>): V => {
    const h = headers[SETTING_HEADERS[name].toLowerCase()];
    const fromHeader = (Array.isArray(h) ? h : h === undefined ? [] : [h]).filter((v) => v !== '');
    return fromHeader.length > 0 ? param.read(fromHeader, SETTING_HEADERS[name]) : param.read(values.get(name) ?? [], name);
  };
  const timeout = setting('x_timeout', SETTINGS.x_timeout);
  const noAddressBook = setting('x_no_address_book', SETTINGS.x_no_address_book) ?? false;
  const noMetadata = setting('x_no_metadata', SETTINGS.x_no_metadata) ?? false;
  setting('api_key', SETTINGS.api_key);
  const actionsVersion = setting('x_actions_version', SETTINGS.x_actions_version);
  return { params: parsed, settings: { timeoutMs: Math.min(timeout ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS), noAddressBook, ...(noMetadata ? { noMetadata } : {}), ...(actionsVersion === undefined ? {} : { actionsVersion }) } };
}
