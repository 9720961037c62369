/**
 * The liteserver queries the fetcher makes, typed in the fetcher's terms (hex shards, base64
 * hashes), over a LitePool. Raw `engine.query` calls: ton-lite-client has no getBlock, and its
 * getAccountState parses the state we want as bytes.
 */
import { createHash } from 'node:crypto';
import { type CellTable, parseBoc } from '@tonstream/block';
import type { LiteServerAddress } from '@tonstream/liteserver';
import { LiteSingleEngine } from 'ton-lite-client';
import { Functions, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { createLitePool, type LitePool, type LitePoolOptions, type PoolServer } from './lite-pool.js';
import type { FullBlockId } from './shard-walk.js';

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
export class VerifyError extends Error {
  override name = 'VerifyError';
}

export function toTlBlockId(id: FullBlockId): tonNode_blockIdExt {
  return {
    kind: 'tonNode.blockIdExt',
    workchain: id.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${id.shard}`)).toString(),
    seqno: id.seqno,
    rootHash: Buffer.from(id.root_hash, 'base64'),
    fileHash: Buffer.from(id.file_hash, 'base64'),
  };
}

export function fromTlBlockId(id: tonNode_blockIdExt): FullBlockId {
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
  return {
    pool,
    async head() {
      const info = await pool.query('getMasterchainInfoExt', Functions.liteServer_getMasterchainInfoExt, { kind: 'liteServer.getMasterchainInfoExt', mode: 0 });
      return { last: fromTlBlockId(info.last), lastUtime: info.lastUtime, zeroState: Buffer.from(info.init.rootHash).toString('base64') };
    },
    async masterchainBlockId(seqno) {
      return pool.query('lookupBlock', Functions.liteServer_lookupBlock, {
        kind: 'liteServer.lookupBlock',
        mode: 1,
        id: { kind: 'tonNode.blockId', workchain: MASTERCHAIN, shard: BigInt.asIntN(64, 1n << 63n).toString(), seqno },
        lt: null,
        utime: null,
      }, (res) => {
        const id = fromTlBlockId(res.id);
        if (id.workchain !== MASTERCHAIN || id.seqno !== seqno) throw new VerifyError(`lookupBlock(${seqno}) answered ${describeId(id)}`);
        return id;
      });
    },
    async getBlock(id) {
      return pool.query('getBlock', Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: toTlBlockId(id) }, (res) => verifyBlockBoc(id, res.data));
    },
    async getAccountState(block, account, check) {
      const [wc, hex] = account.split(':');
      const req = { kind: 'liteServer.getAccountState', id: toTlBlockId(block), account: { kind: 'liteServer.accountId', workchain: Number(wc), id: Buffer.from(hex, 'hex') } } as const;
      return pool.query('getAccountState', Functions.liteServer_getAccountState, req, (res) => {
        check?.(res.state);
        return res.state;
      });
    },
  };
}

export type ConnectOptions = Omit<LitePoolOptions, 'servers'> & {
  /** Told when a connection fails (ton-lite-client then reconnects by itself after 30 s). */
  onConnectionError?: (server: string) => void;
};

/** One ton-lite-client engine per liteserver, pooled. Resolves once one is connected or after `readyTimeoutMs`. */
export async function connectLiteservers(addresses: readonly LiteServerAddress[], options: ConnectOptions & { readyTimeoutMs?: number } = {}): Promise<LiteApi> {
  const { readyTimeoutMs = 5_000, onConnectionError, ...poolOptions } = options;
  const servers: PoolServer[] = addresses.map((a) => {
    const name = `${a.host}:${a.port}`;
    const engine = new LiteSingleEngine({ host: `tcp://${a.host}:${a.port}`, publicKey: a.publicKey });
    // Without a listener an 'error' event would throw; the engine reconnects on its own.
    engine.on('error', () => onConnectionError?.(name));
    return { name, engine };
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyTimeoutMs);
    for (const s of servers) {
      (s.engine as LiteSingleEngine).once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    }
  });
  return createLiteApi(createLitePool({ ...poolOptions, servers }));
}
