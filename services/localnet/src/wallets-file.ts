/**
 * `<state dir>/wallets.json` and the start-up listing of the prefunded wallets: the public test
 * wallets every new local chain deploys in its first block (PREFUNDED_WALLETS, packages/localnet).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { type Chain, PREFUNDED_WALLETS, type PrefundedWalletVersion } from '@tonstream/localnet';

export type WalletsFileEntry = {
  mnemonic: string;
  version: PrefundedWalletVersion;
  /** Raw form, `0:<hex>`. */
  address: string;
  /** Nanotons, as of the last block when the file was written. */
  balance: string;
};

/** The prefunded wallets the chain holds, with their balances now; a chain made before they existed has none. */
export async function prefundedWalletsOnChain(chain: Chain): Promise<WalletsFileEntry[]> {
  const out: WalletsFileEntry[] = [];
  for (const w of PREFUNDED_WALLETS) {
    const st = await chain.getAccountState(w.address);
    if (st.status === 'nonexist') continue;
    out.push({ mnemonic: w.mnemonic, version: w.version, address: w.address, balance: st.balance.toString() });
  }
  return out;
}

export function writeWalletsFile(path: string, wallets: WalletsFileEntry[]): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(wallets, null, 2) + '\n');
  renameSync(tmp, path);
}

/** What the process prints at start, anvil-style: one block a person can copy from. */
export function walletsBanner(wallets: WalletsFileEntry[], path: string): string {
  const lines = [
    '',
    `Prefunded wallets (also in ${path})`,
    '!!! PUBLIC TEST KEYS: these mnemonics are published in the tonstream repository. Anyone can spend',
    '!!! what their addresses hold on any network. Use them on this local network only.',
    '',
  ];
  wallets.forEach((w, i) => {
    const ton = `${BigInt(w.balance) / 1_000_000_000n}.${(BigInt(w.balance) % 1_000_000_000n).toString().padStart(9, '0')}`;
    lines.push(`(${i}) ${w.version} ${w.address}  ${ton} TON`, `    ${w.mnemonic}`);
  });
  return lines.join('\n') + '\n';
}
