/**
 * The liteserver queries the fetcher makes, in the fetcher's terms (hex shards, base64 hashes), over
 * @tonstream/lite-client's reads: every block and state is checked against the id it was asked by,
 * and a check that fails sends the query on to the next server.
 */
import { createHash } from 'node:crypto';
import { type CellTable, parseBoc } from '@tonstream/block';
import { type BlockIdExt, type ConnectOptions, connectLitePool, createLiteReads, type LitePool, type LiteServerAddress, toTlBlockId } from '@tonstream/lite-client';
import type { FullBlockId } from './shard-walk.js';
import { TonstreamError } from '@tonstream/errors';

export const MASTERCHAIN = -1;
export const MASTERCHAIN_SHARD = '8000000000000000';

/** The chain's newest masterchain block and identity. */
export type ChainHead = { last: FullBlockId; /** gen_utime of `last`, seconds. */ lastUtime: number; /** Masterchain zero state root hash, base64. */ zeroState: string };

/** A downloaded block whose root hash and file hash were checked against the id it was asked by. */
export type VerifiedBlock = { id: FullBlockId; boc: Uint8Array; cells: CellTable };

export type LiteApi = {
  head(): Promise<ChainHead>;
  /** Full id of the masterchain block with this seqno (lookupBlock). */
  masterchainBlockId(seqno: number): Promise<FullBlockId>;
  getBlock(id: FullBlockId): Promise<VerifiedBlock>;
  /** `Account` BoC of `account` (raw `wc:HEX`) in the state after `block`; empty for a nonexistent account. */
  getAccountState(block: FullBlockId, account: string, check?: (state: Uint8Array) => void): Promise<Uint8Array>;
  pool: LitePool;
};

/** A downloaded block or state does not match what it was requested by. Retried on another server. */
export class VerifyError extends TonstreamError {
  readonly code = 'PROOF_INVALID';
}

export function fromTlBlockId(id: BlockIdExt): FullBlockId {
  return {
    workchain: id.workchain,
    shard: BigInt.asUintN(64, BigInt(id.shard)).toString(16).toUpperCase().padStart(16, '0'),
    seqno: id.seqno,
    root_hash: Buffer.from(id.rootHash).toString('base64'),
    file_hash: Buffer.from(id.fileHash).toString('base64'),
  };
}

export function describeId(id: Pick<FullBlockId, 'workchain' | 'shard' | 'seqno'>): string {
  return `(${id.workchain},${id.shard},${id.seqno})`;
}

/** Parses a block BoC and checks both hashes: root cell hash = root_hash, sha256(bytes) = file_hash. */
export function verifyBlockBoc(id: FullBlockId, boc: Uint8Array): VerifiedBlock {
  const fileHash = createHash('sha256').update(boc).digest('base64');
  if (fileHash !== id.file_hash) throw new VerifyError(`block ${describeId(id)}: file hash ${fileHash} != requested ${id.file_hash}`);
  const cells = parseBoc(boc);
  if (cells.roots.length !== 1) throw new VerifyError(`block ${describeId(id)}: BoC has ${cells.roots.length} roots, expected 1`);
  const rootHash = Buffer.from(cells.hash(cells.roots[0])).toString('base64');
  if (rootHash !== id.root_hash) throw new VerifyError(`block ${describeId(id)}: root hash ${rootHash} != requested ${id.root_hash}`);
  return { id, boc, cells };
}

export function createLiteApi(pool: LitePool): LiteApi {
  const reads = createLiteReads(pool);
  return {
    pool,
    async head() {
      const info = await reads.masterchainInfo();
      return { last: fromTlBlockId(info.last), lastUtime: info.lastUtime, zeroState: Buffer.from(info.init.rootHash).toString('base64') };
    },
    masterchainBlockId: (seqno) =>
      reads.lookupBlock(MASTERCHAIN, 1n << 63n, { seqno }, (res) => {
        const id = fromTlBlockId(res.id);
        if (id.workchain !== MASTERCHAIN || id.seqno !== seqno) throw new VerifyError(`lookupBlock(${seqno}) answered ${describeId(id)}`);
        return id;
      }),
    getBlock: (id) => reads.block(toTlBlockId(id), (res) => verifyBlockBoc(id, res.data)),
    getAccountState(block, account, check) {
      const [wc, hex] = account.split(':');
      return reads.accountState(toTlBlockId(block), { workchain: Number(wc), hash: Buffer.from(hex, 'hex') }, (res) => {
        check?.(res.state);
        return res.state;
      });
    },
  };
}

/** A LiteApi over every liteserver of `addresses`; resolves once one is connected (see connectLitePool). */
export async function connectLiteservers(addresses: readonly LiteServerAddress[], options: ConnectOptions = {}): Promise<LiteApi> {
  return createLiteApi(await connectLitePool(addresses, options));
}
