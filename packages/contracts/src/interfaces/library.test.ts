import { type Address, beginCell, Cell, Dictionary, loadShardAccount } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountStateRecord } from '@tonstream/block';
import { beforeAll, describe, expect, it } from 'vitest';
import { createInterfaceDetector, describeAccount, detectInterfaces, LIBRARY_INTERFACES, libraryHash, librariesFromCollection, methodId, readJettonWalletData } from '../index.js';

/*
 * Mainnet contracts whose code is a library cell (USDT wallets among them), cut from the replay
 * fixture of block (0,8000000000000000,71398501) with the masterchain library entries they name
 * (test/fixtures/mainnet/SOURCES.md). The contracts' own get-methods, run by the TON emulator with
 * those libraries, are the reference.
 */
const FIXTURE = join(import.meta.dirname, '../../../../test/fixtures/mainnet/replay/library_code_accounts_71398501.json');
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { accounts: { account: string; shard_account_boc_base64: string }[]; libraries_collection_boc_base64: string };
const collection = Cell.fromBase64(fixture.libraries_collection_boc_base64);
const USDT_WALLET_LIBRARY = '8F452D7A4DFD74066B682365177259ED05734435BE76B5FD4BD5D8AF2B7C3D68';

const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
const accounts = fixture.accounts.map((a) => {
  const shard = loadShardAccount(Cell.fromBase64(a.shard_account_boc_base64).beginParse());
  const state = shard.account!.storage.state;
  if (state.type !== 'active') throw new Error(`${a.account} is not active`);
  // The record the decoder makes of the same account (what describeAccount is given in the pipeline).
  const record = accountStateRecord(Cell.fromBase64(a.shard_account_boc_base64).beginParse().loadRef().toBoc(), { account: a.account, lastTransLt: '0', lastTransHash: 'A'.repeat(43) + '=', mcSeqno: null, genUtime: 0 });
  return { address: shard.account!.addr, shard, code: state.state.code!, data: state.state.data!, record };
});

describe('library-cell code', () => {
  it('names the library each code refers to; ordinary code has none', () => {
    const hashes = accounts.map((a) => libraryHash(a.code));
    expect(hashes.every((h) => h !== null && /^[0-9A-F]{64}$/.test(h))).toBe(true);
    expect(hashes.filter((h) => h === USDT_WALLET_LIBRARY)).toHaveLength(6);
    expect(libraryHash(beginCell().storeUint(2, 8).endCell())).toBeNull();
  });

  it('resolves each library from the masterchain collection to the code whose hash it names', () => {
    const resolve = librariesFromCollection(collection);
    for (const a of accounts) {
      const hash = libraryHash(a.code)!;
      expect(resolve(hash)?.hash().toString('hex').toUpperCase()).toBe(hash);
    }
    expect(resolve('00'.repeat(32))).toBeNull();
  });

  it('the known-library table agrees with the resolved code: a USDT wallet has the Jetton wallet get-methods', () => {
    const resolve = librariesFromCollection(collection);
    for (const [hash, interfaces] of LIBRARY_INTERFACES) {
      const code = resolve(hash);
      expect(code, hash).not.toBeNull();
      if (!code) continue;
      expect(detectInterfaces(code.hash().toString('base64'), code).interfaces).toEqual(interfaces);
    }
    const usdt = accounts.find((a) => libraryHash(a.code) === USDT_WALLET_LIBRARY)!;
    const codeHash = usdt.code.hash().toString('base64');
    // Without the library: known by its hash. With it: read from the code, methods included.
    expect(detectInterfaces(codeHash, usdt.code)).toEqual({ interfaces: ['jetton_wallet'], methods: null });
    const resolved = createInterfaceDetector(10, resolve)(codeHash, usdt.code.toBoc().toString('base64'));
    expect(resolved.interfaces).toEqual(['jetton_wallet']);
    expect(resolved.methods).toContain(methodId('get_wallet_data'));
  });

  describe('USDT wallet state read by layout equals get_wallet_data run with the library', () => {
    let chain: Blockchain;
    beforeAll(async () => {
      chain = await Blockchain.create();
      const resolve = librariesFromCollection(collection);
      const libs = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
      for (const a of accounts) {
        const lib = resolve(libraryHash(a.code)!)!;
        libs.set(lib.hash(), lib);
      }
      chain.libs = beginCell().storeDictDirect(libs).endCell();
    });

    it('balance, owner and jetton of every USDT wallet in the fixture', async () => {
      const usdt = accounts.filter((a) => libraryHash(a.code) === USDT_WALLET_LIBRARY);
      for (const a of usdt) {
        await chain.setShardAccount(a.address, a.shard);
        const r = (await chain.runGetMethod(a.address, 'get_wallet_data')).stackReader;
        const read = readJettonWalletData(a.data);
        expect(read, raw(a.address)).not.toBeNull();
        expect(read!.balance).toBe(r.readBigNumber().toString());
        expect(read!.owner).toBe(raw(r.readAddress()));
        expect(read!.jetton).toBe(raw(r.readAddress()));
        // The facts of the decoder's record of the account: the same reading, under jetton_wallet.
        expect(describeAccount(a.record), raw(a.address)).toEqual({ interfaces: ['jetton_wallet'], methods: null, jetton_wallet: read });
      }
      // One jetton: Tether's USD₮ master on mainnet.
      expect(new Set(usdt.map((a) => readJettonWalletData(a.data)!.jetton))).toEqual(new Set(['0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE']));
    });
  });
});
