import { Cell, type Dictionary, loadShardStateUnsplit } from '@ton/core';
import { masterchainBlock } from './block-ids.js';
import { ChainError } from './chain-error.js';
import type { Liteserver } from './liteserver.js';

/** The config dictionary (`Hashmap 32 ^Cell`) at a masterchain block. */
export async function configDict(lite: Liteserver, seqno: number | undefined): Promise<Dictionary<number, Cell>> {
  const mc = await masterchainBlock(lite, seqno);
  const info = await lite.configAll(mc);
  try {
    const proof = Cell.fromBoc(Buffer.from(info.configProof))[0];
    const extras = loadShardStateUnsplit(proof.refs[0].beginParse()).extras;
    if (!extras) throw new Error('no masterchain state extra');
    return extras.config;
  } catch (err) {
    throw new ChainError(502, `liteserver sent an unreadable config proof: ${(err as Error).message}`, { cause: err });
  }
}
