import { beginCell, type Cell } from '@ton/core';
import { b64 } from '../chain/account-state.js';
import { list, optional } from '../http/params.js';
import { configDict } from '../chain/config.js';
import { V2Error } from './envelope.js';
import * as kinds from './kinds.js';
import { defineMethod } from './method.js';

/** Configuration methods (docs/toncenter-v2.md §2.4), from the liteserver's config proof. */

const tvmCell = (c: Cell) => ({ '@type': 'tvm.cell', bytes: b64(c.toBoc()) });
const SEQNO = optional(kinds.seqno, 'Masterchain seqno; default the newest.');

export const getConfigParam = defineMethod({
  name: 'getConfigParam',
  summary: 'One configuration parameter as a cell',
  source: 'liteserver',
  params: {
    config_id: optional(kinds.nonNegative, 'Parameter number.'),
    param: optional(kinds.nonNegative, 'Parameter number (the other name C++ toncenter accepts).'),
    seqno: SEQNO,
  },
  async handle({ params: p, lite }) {
    if ((p.config_id === undefined) === (p.param === undefined)) throw new V2Error(422, 'exactly one of config_id, param should be specified');
    const id = (p.config_id ?? p.param)!;
    const value = (await configDict(lite, p.seqno)).get(id);
    if (!value) throw new V2Error(404, `config param ${id} not found`);
    return { '@type': 'configInfo', config: tvmCell(value) };
  },
});

export const getConfigAll = defineMethod({
  name: 'getConfigAll',
  summary: 'The whole configuration dictionary as a cell',
  source: 'liteserver',
  params: { seqno: SEQNO },
  async handle({ params, lite }) {
    const dict = await configDict(lite, params.seqno);
    return { '@type': 'configInfo', config: tvmCell(beginCell().storeDictDirect(dict).endCell()) };
  },
});

/** Upstream liteservers answer at most 16 libraries per query. */
const MAX_LIBRARIES = 16;

export const getLibraries = defineMethod({
  name: 'getLibraries',
  summary: 'Library cells by hash',
  source: 'liteserver',
  params: { libraries: list(kinds.hash, `Library hashes (repeat the key), at most ${MAX_LIBRARIES}.`, MAX_LIBRARIES) },
  async handle({ params, lite }) {
    const hashes = params.libraries ?? [];
    if (hashes.length === 0) throw new V2Error(422, 'parameter "libraries" is required: at least one library hash');
    const res = await lite.libraries(hashes.map((h) => Buffer.from(h, 'base64')));
    return { '@type': 'smc.libraryResult', result: res.result.map((e) => ({ '@type': 'smc.libraryEntry', hash: b64(e.hash), data: b64(e.data) })) };
  },
});
