import { Address, beginCell, Cell, Dictionary, toNano, type TupleReader } from '@ton/core';
import { Blockchain, createShardAccount } from '@ton/sandbox';
import { MultisigWallet, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { JettonMinter, JettonWallet, NftCollection, NftItem } from '@ton-community/assets-sdk';
import { createHash } from 'node:crypto';
import TonWeb from 'tonweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { HIGHLOAD_V3_CODE_HEX } from '../../../localnet/src/traffic/highload-v3.js';
import { createInterfaceDetector, detectInterfaces, getMethodIds, methodId, readJettonMasterData, readJettonWalletData, readNftCollectionData, readNftItemData, readTokenContent, servedInterfaces } from '../index.js';

const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
const hashOf = (c: Cell) => c.hash().toString('base64');
const KEY = Buffer.alloc(32, 7);

describe('methodId()', () => {
  it('gives the ids the TON tooling documents for the standard get-methods', () => {
    // Ids as they appear in contracts' method dictionaries and explorers (FunC's `method_id` rule).
    expect(methodId('seqno')).toBe(85143);
    expect(methodId('get_public_key')).toBe(78748);
    expect(methodId('get_wallet_data')).toBe(97026);
    expect(methodId('get_jetton_data')).toBe(106029);
  });
});

describe('detectInterfaces()', () => {
  it('names standard wallets by code hash and lists their get-methods', () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: KEY }).init.code;
    const v5 = WalletContractV5R1.create({ workchain: 0, publicKey: KEY }).init.code;
    const hl = Cell.fromBoc(Buffer.from(HIGHLOAD_V3_CODE_HEX, 'hex'))[0];
    expect(detectInterfaces(hashOf(v4), v4).interfaces).toEqual(['wallet_v4r2']);
    expect(detectInterfaces(hashOf(v4), v4).methods).toContain(methodId('seqno'));
    expect(detectInterfaces(hashOf(v5), v5).interfaces).toEqual(['wallet_v5r1']);
    expect(detectInterfaces(hashOf(hl), hl).interfaces).toEqual(['wallet_highload_v3r1']);
  });

  it('names wallet v4 r1 (tonweb\'s code) by the hash toncenter lists for it', async () => {
    const code = new TonWeb.Wallets.all.v4R1(null as never, { publicKey: new Uint8Array(KEY) }).options.code!;
    const cell = Cell.fromBoc(Buffer.from(await code.toBoc(false)))[0];
    expect(hashOf(cell)).toBe(Buffer.from(await code.hash()).toString('base64'));
    expect(detectInterfaces(hashOf(cell), cell).interfaces).toEqual(['wallet_v4r1']);
  });

  it('recognises the Jetton and NFT contracts of @ton-community/assets-sdk by their get-methods', () => {
    const of = (c: Cell) => detectInterfaces(hashOf(c), c).interfaces;
    expect(of(JettonMinter.code)).toEqual(['jetton_master']);
    expect(of(JettonWallet.code)).toEqual(['jetton_wallet']);
    expect(of(NftCollection.code)).toEqual(['nft_collection']);
    expect(of(NftItem.nftCode)).toEqual(['nft_item']);
  });

  it('finds no methods in code without the standard entry point, and caches answers by code hash', () => {
    const odd = beginCell().storeUint(0xdeadbeef, 32).endCell();
    expect(getMethodIds(odd)).toBeNull();
    const detect = createInterfaceDetector(2);
    const boc = JettonWallet.code.toBoc().toString('base64');
    expect(detect(hashOf(JettonWallet.code), boc).interfaces).toEqual(['jetton_wallet']);
    // A cached answer does not need the code again.
    expect(detect(hashOf(JettonWallet.code), null).interfaces).toEqual(['jetton_wallet']);
    expect(detect(null, boc).interfaces).toEqual([]);
  });

  it('does not remember an answer given without the code: the code, seen later, gives the methods', () => {
    const detect = createInterfaceDetector();
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32, 3) }).init.code;
    expect(detect(hashOf(v4), null)).toEqual({ interfaces: ['wallet_v4r2'], methods: null });
    expect(detect(hashOf(v4), v4.toBoc().toString('base64'))).toEqual({ interfaces: ['wallet_v4r2'], methods: getMethodIds(v4) });
    expect(getMethodIds(v4)?.length).toBeGreaterThan(3);
  });
});

describe('contract_methods and interfaces as toncenter serves them', () => {
  // toncenter's indexer reads the method dictionary's keys as stored: 19-bit unsigned, so FunC's
  // recv_external (-1) is 2^19 - 1, and sorts them ascending (ton-index-worker's contract_methods).
  const unsigned19 = (id: number) => Number(BigInt.asUintN(19, BigInt(id)));

  it('lists the dictionary keys unsigned and ascending', () => {
    const dict = Dictionary.empty(Dictionary.Keys.Int(19), Dictionary.Values.Cell());
    for (const id of [-1, 85143, 0, -2]) dict.set(id, beginCell().endCell());
    // SETCP0; <dict> 19 DICTPUSHCONST: the entry point FunC compiles, the dictionary as @ton/core stores it.
    const code = beginCell().storeUint(0xff00f4a413, 40).storeRef(beginCell().storeDictDirect(dict)).endCell();
    expect(unsigned19(-1)).toBe(524287);
    expect(getMethodIds(code)).toEqual([0, 85143, unsigned19(-2), unsigned19(-1)]);
  });

  it('gives wallet v4 r2 its get-methods, recv_internal and recv_external (524287 last)', () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: KEY }).init.code;
    const names = ['seqno', 'get_subwallet_id', 'get_public_key', 'get_plugin_list', 'is_plugin_installed'];
    const expected = [0, ...names.map(methodId), unsigned19(-1)].sort((a, b) => a - b);
    expect(detectInterfaces(hashOf(v4), v4).methods).toEqual(expected);
  });

  it('interfaces: the names; null when get-methods name none; [] without get-methods to match (ton-index-go DetectInterface)', () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: KEY }).init.code;
    const multisigV1 = new MultisigWallet([KEY], 0, 1, 1).init.code;
    const served = (c: Cell | null) => servedInterfaces(createInterfaceDetector()(c && hashOf(c), c && c.toBoc().toString('base64')));
    expect(served(v4)).toEqual(['wallet_v4r2']);
    expect(served(JettonWallet.code)).toEqual(['jetton_wallet']);
    // Multisig v1 answers get_n_k and get_public_keys: get-methods, none in toncenter's list.
    expect(served(multisigV1)).toBeNull();
    expect(served(beginCell().storeUint(0xdeadbeef, 32).endCell())).toEqual([]);
    expect(served(null)).toEqual([]);
  });
});

/** Runs a contract's own get-method in the TON emulator on the given code and data. */
describe('data layouts against the contracts\' own get-methods (TON emulator)', () => {
  let chain: Blockchain;
  beforeAll(async () => {
    chain = await Blockchain.create();
  });
  const at = async (code: Cell, data: Cell, seed: string) => {
    const address = new Address(0, createHash('sha256').update(seed).digest());
    await chain.setShardAccount(address, createShardAccount({ address, code, data, balance: toNano('1') }));
    return address;
  };
  const get = async (a: Address, method: string, args: { type: 'int'; value: bigint }[] = []): Promise<TupleReader> => (await chain.runGetMethod(a, method, args)).stackReader;

  it('Jetton wallet: balance (above 2^64), owner and master equal get_wallet_data', async () => {
    const owner = new Address(0, Buffer.alloc(32, 1));
    const master = new Address(0, Buffer.alloc(32, 2));
    const balance = (1n << 100n) + 12345n;
    const data = beginCell().storeCoins(balance).storeAddress(owner).storeAddress(master).storeRef(JettonWallet.code).endCell();
    const r = await get(await at(JettonWallet.code, data, 'jw'), 'get_wallet_data');
    const read = readJettonWalletData(data)!;
    expect(read.balance).toBe(r.readBigNumber().toString());
    expect(read.owner).toBe(raw(r.readAddress()));
    expect(read.jetton).toBe(raw(r.readAddress()));
    expect(read.balance).toBe(balance.toString());
  });

  it('Jetton master: supply, admin, content and wallet code hash equal get_jetton_data', async () => {
    const admin = new Address(0, Buffer.alloc(32, 3));
    const content = beginCell().storeUint(1, 8).storeStringTail('https://example.invalid/jetton.json').endCell();
    const minter = JettonMinter.createFromConfig({ admin, content });
    const { code, data } = minter.init as { code: Cell; data: Cell };
    const r = await get(await at(code, data, 'jm'), 'get_jetton_data');
    const read = readJettonMasterData(data)!;
    expect(read.total_supply).toBe(r.readBigNumber().toString());
    expect(read.mintable).toBe(r.readBigNumber() !== 0n);
    expect(read.admin_address).toBe(raw(r.readAddress()));
    expect(readTokenContent(r.readCell())).toEqual(read.jetton_content);
    expect(read.jetton_content).toEqual({ uri: 'https://example.invalid/jetton.json' });
    expect(read.jetton_wallet_code_hash).toBe(hashOf(r.readCell()));
  });

  it('NFT item: init, index, collection, owner equal get_nft_data; an uninitialised item has no owner', async () => {
    const collection = new Address(0, Buffer.alloc(32, 4));
    const owner = new Address(0, Buffer.alloc(32, 5));
    const data = beginCell().storeUint(77, 64).storeAddress(collection).storeAddress(owner).storeRef(beginCell().storeStringTail('77.json').endCell()).endCell();
    const r = await get(await at(NftItem.nftCode, data, 'item'), 'get_nft_data');
    const read = readNftItemData(data)!;
    expect(read.init).toBe(r.readBigNumber() !== 0n);
    expect(read.index).toBe(r.readBigNumber().toString());
    expect(read.collection_address).toBe(raw(r.readAddress()));
    expect(read.owner_address).toBe(raw(r.readAddress()));
    expect(read.individual_content).toBe('77.json');
    const bare = beginCell().storeUint(78, 64).storeAddress(collection).endCell();
    const u = await get(await at(NftItem.nftCode, bare, 'item-uninit'), 'get_nft_data');
    expect(readNftItemData(bare)).toMatchObject({ init: u.readBigNumber() !== 0n, index: u.readBigNumber().toString(), owner_address: null });
  });

  it('NFT collection: owner, next index and content equal get_collection_data', async () => {
    const admin = new Address(0, Buffer.alloc(32, 6));
    // TEP-62's content: ^collection_content ^common_content (get_collection_data answers the first).
    const collectionContent = beginCell().storeUint(1, 8).storeStringTail('https://example.invalid/c.json').endCell();
    const content = beginCell().storeRef(collectionContent).storeRef(beginCell().storeStringTail('https://example.invalid/c/').endCell()).endCell();
    const { code, data } = NftCollection.createFromConfig({ admin, content }).init as { code: Cell; data: Cell };
    const r = await get(await at(code, data, 'coll'), 'get_collection_data');
    const read = readNftCollectionData(data)!;
    expect(read.next_item_index).toBe(r.readBigNumber().toString());
    expect(readTokenContent(r.readCell())).toEqual(read.collection_content);
    expect(read.owner_address).toBe(raw(r.readAddress()));
    expect(read).toMatchObject({ collection_content: { uri: 'https://example.invalid/c.json' }, common_content: 'https://example.invalid/c/' });
  });

  it('NFT collection whose content is a bare TEP-64 cell: get_collection_data fails, so the reader answers nothing', async () => {
    const admin = new Address(0, Buffer.alloc(32, 6));
    const content = beginCell().storeUint(1, 8).storeStringTail('https://example.invalid/bare.json').endCell();
    const { code, data } = NftCollection.createFromConfig({ admin, content }).init as { code: Cell; data: Cell };
    const failed = await chain.runGetMethod(await at(code, data, 'coll-bare'), 'get_collection_data').then(() => null, (e: { exitCode?: number }) => e.exitCode);
    expect(failed).toBe(9);
    expect(readNftCollectionData(data)).toBeNull();
  });

  it('refuses data that is not the layout (a wallet read as a jetton wallet)', () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: KEY }).init.data;
    expect(readJettonWalletData(v4)).toBeNull();
    expect(readJettonMasterData(v4)).toBeNull();
    expect(readNftCollectionData(v4)).toBeNull();
  });
});

describe('readTokenContent()', () => {
  it('reads TEP-64 on-chain content: snake and chunked values under sha256 keys', () => {
    const key = (k: string) => BigInt('0x' + createHash('sha256').update(k).digest('hex'));
    const snake = (t: string) => beginCell().storeUint(0, 8).storeStringTail(t).endCell();
    const chunks = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.Cell());
    chunks.set(0, beginCell().storeStringTail('Tok').endCell());
    chunks.set(1, beginCell().storeStringTail('en').endCell());
    const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    dict.set(key('symbol'), snake('TKN'));
    dict.set(key('decimals'), snake('9'));
    dict.set(key('name'), beginCell().storeUint(1, 8).storeDict(chunks).endCell());
    dict.set(key('unknown-key'), snake('x'));
    const cell = beginCell().storeUint(0, 8).storeDict(dict).endCell();
    expect(readTokenContent(cell)).toEqual({ symbol: 'TKN', decimals: '9', name: 'Token' });
  });
});
