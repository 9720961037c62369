import { friendlyAddress } from '../chain/address.js';
import { required } from '../http/params.js';
import { V2Error } from './envelope.js';
import * as kinds from './kinds.js';
import { defineMethod } from './method.js';

/** Address and hash forms (docs/toncenter-v2.md §2.7): pure functions of the parameter. */

const ADDRESS = { address: required(kinds.anyAddress, 'An address, raw or user-friendly.') };

const variant = (a: kinds.V2Address, bounceable: boolean, testOnly: boolean) => {
  const url = friendlyAddress(a, { bounceable, testOnly });
  return { '@type': 'ext.utils.detectedAddressVariant', b64: url.replace(/-/g, '+').replace(/_/g, '/'), b64url: url };
};

export const detectAddress = defineMethod({
  name: 'detectAddress',
  summary: 'Every form of an address',
  source: 'local',
  params: ADDRESS,
  async handle({ params: { address: a }, testnet }) {
    const testOnly = a.givenType === 'raw_form' ? testnet : a.testOnly;
    return {
      '@type': 'ext.utils.detectedAddress',
      raw_form: `${a.workchain}:${Buffer.from(a.hash).toString('hex')}`,
      bounceable: variant(a, true, testOnly),
      non_bounceable: variant(a, false, testOnly),
      given_type: a.givenType,
      test_only: testOnly,
    };
  },
});

export const packAddress = defineMethod({
  name: 'packAddress',
  summary: 'Raw address to user-friendly (bounceable, url-safe base64)',
  source: 'local',
  params: ADDRESS,
  async handle({ params: { address: a }, testnet }) {
    if (a.givenType !== 'raw_form') throw new V2Error(422, 'invalid value for parameter "address": expected a raw address (wc:hex)');
    return friendlyAddress(a, { bounceable: true, testOnly: testnet });
  },
});

export const unpackAddress = defineMethod({
  name: 'unpackAddress',
  summary: 'User-friendly address to raw (wc:hex)',
  source: 'local',
  params: ADDRESS,
  async handle({ params: { address: a } }) {
    if (a.givenType === 'raw_form') throw new V2Error(422, 'invalid value for parameter "address": expected a user-friendly address');
    return `${a.workchain}:${Buffer.from(a.hash).toString('hex')}`;
  },
});

export const detectHash = defineMethod({
  name: 'detectHash',
  summary: 'Every form of a 32-byte hash',
  source: 'local',
  params: { hash: required(kinds.hash, 'A hash: 64 hex digits or base64 / base64url.') },
  async handle({ params }) {
    const bytes = Buffer.from(params.hash, 'base64');
    return { '@type': 'ext.utils.detectedHash', b64: bytes.toString('base64'), b64url: bytes.toString('base64url'), hex: bytes.toString('hex') };
  },
});
