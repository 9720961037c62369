import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Cell, Dictionary } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { describe, expect, it } from 'vitest';
import { createChain } from './chain.js';
import { blockSigningMessage, deriveValidators, nodeIdShort } from './validators.js';

describe('validators', () => {
  it('signs TL ton.blockId and files under sha256 of TL pub.ed25519 (constructor ids are the CRC32 of their schema lines)', () => {
    const id = { rootHash: 'aa'.repeat(32), fileHash: 'bb'.repeat(32) };
    const msg = blockSigningMessage(id);
    expect(msg.length).toBe(68);
    expect(msg.readUInt32LE(0)).toBe(crc32('ton.blockId root_cell_hash:int256 file_hash:int256 = ton.BlockId'));
    expect(msg.subarray(4).toString('hex')).toBe(id.rootHash + id.fileHash);
    const key = Buffer.alloc(32, 3);
    const tl = Buffer.alloc(4);
    tl.writeUInt32LE(crc32('pub.ed25519 key:int256 = PublicKey'));
    expect(nodeIdShort(key)).toBe(createHash('sha256').update(Buffer.concat([tl, key])).digest('hex'));
  });

  it('derives the same keys from the same seed and different ones from another', () => {
    const a = deriveValidators('s', 4, 1_700_000_000).set;
    expect(deriveValidators('s', 4, 1_700_000_000).set.hashShort).toBe(a.hashShort);
    expect(deriveValidators('t', 4, 1_700_000_000).set.validators[0].publicKey.equals(a.validators[0].publicKey)).toBe(false);
    expect(a.validators.map((v) => v.weight)).toEqual([...a.validators.map((v) => v.weight)].sort((x, y) => (x > y ? -1 : 1)));
  });

  it("a new chain's config is the sandbox's with param 34 ours, 28 without shuffle and no other validator sets", async () => {
    const chain = await createChain({ seed: 'validators-config', shards: 1, prefundedWallets: [] });
    const load = (c: Cell) => Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), c);
    const ours = load(Cell.fromBoc(Buffer.from(chain.config().boc))[0]);
    const sandbox = load((await Blockchain.create()).config);
    for (const n of [32, 33, 35, 36, 37]) expect(ours.has(n)).toBe(false);
    for (const n of sandbox.keys().filter((k) => ![28, 32, 33, 34, 35, 36, 37].includes(k))) expect(ours.get(n)?.hash(), `param ${n}`).toEqual(sandbox.get(n)?.hash());
    expect(ours.get(34)?.hash()).not.toEqual(sandbox.get(34)?.hash());
    expect(chain.validatorSet()?.validators).toHaveLength(4);
  });
});
