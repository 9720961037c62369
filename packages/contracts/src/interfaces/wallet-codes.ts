/**
 * Standard wallets by code hash (base64), named as toncenter names them (docs/toncenter-v3.md §4 "Wallet
 * types"). The hashes are those of the codes @ton/ton deploys; test/unit/api-wallets.test.ts recomputes
 * each from @ton/ton's contracts. Not here: `wallet v4 r1` (@ton/ton has no v4r1 contract to check a
 * hash against) and highload wallets, which toncenter does not parse either (`is_wallet: false`, §2.2).
 */
export const WALLET_TYPES: ReadonlyMap<string, WalletType> = new Map([
  ['oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=', 'wallet v1 r1'],
  ['1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=', 'wallet v1 r2'],
  ['WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=', 'wallet v1 r3'],
  ['XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=', 'wallet v2 r1'],
  ['/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=', 'wallet v2 r2'],
  ['thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=', 'wallet v3 r1'],
  ['hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=', 'wallet v3 r2'],
  ['/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=', 'wallet v4 r2'],
  ['89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=', 'wallet v5 beta'],
  ['IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=', 'wallet v5 r1'],
] as const);

export type WalletType =
  | 'wallet v1 r1' | 'wallet v1 r2' | 'wallet v1 r3' | 'wallet v2 r1' | 'wallet v2 r2'
  | 'wallet v3 r1' | 'wallet v3 r2' | 'wallet v4 r2' | 'wallet v5 beta' | 'wallet v5 r1';

/**
 * toncenter's address book form of an address (docs/toncenter-v3.md §3 AddressBookRow): bounceable
 * (`EQ…`) unless the account has no code or runs a standard wallet's (`UQ…`). The API's address
 * books and the streamer's use this one rule.
 */
export function bounceableInAddressBook(codeHash: string | null): boolean {
  return codeHash !== null && !WALLET_TYPES.has(codeHash);
}

/** A code hash's wallet type, or undefined when it is not a standard wallet's. */
export function walletType(codeHash: string | null): WalletType | undefined {
  return codeHash === null ? undefined : WALLET_TYPES.get(codeHash);
}

/**
 * Wallet interfaces by code hash, as toncenter's `interfaces` names them (`wallet_v4r2`): the
 * standard wallets above, plus wallet v4 r1 (tonweb's code), highload wallet v3 (tonweb's code, the
 * one the local network deploys: packages/localnet/src/traffic/highload-v3.ts), the second
 * wallet v5 beta code, and the highload v1/v2 and preprocessed v2 wallets, whose hashes are those
 * ton-index-go's detector lists.
 */
export const WALLET_INTERFACES: ReadonlyMap<string, string> = new Map([
  ...[...WALLET_TYPES].map(([hash, type]): [string, string] => [hash, interfaceName(type)]),
  ['ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=', 'wallet_v4r1'],
  ['5M87L0xtamHqDytUR9JmeFsmrzY32y3u5rzRqoJvNBI=', 'wallet_v5_beta'],
  ['EayteVWEQJDyg78ji8FEmHH3g+fMCXlAjT9IWUg+hSU=', 'wallet_highload_v3r1'],
  ['2M27t58sXKpnesRQdwvgNRviHhJQSG3oXMUqoz3RZIQ=', 'wallet_highload_v1r1'],
  ['Dc7tISadZgE+lbGfu1xVpvAa2tQIN7qo5SHN46AqpGw=', 'wallet_highload_v1r2'],
  ['lJTRzI7fEvBWcaGpugmSEJbrUIEeGSTsZcPGKfu4CBI=', 'wallet_highload_v2'],
  ['jOtFs81LXMYOquHBO5wJI5Jnf+U2sumy2AG2Lv+TH+E=', 'wallet_highload_v2r1'],
  ['ID3U81ittJmTEpqpJcrDmRa2ig5PeNJujywraer6Vnk=', 'wallet_highload_v2r2'],
  ['Reu86bXSNYhstr/hw62TtwjeBYJEiSNlye4N/kOct7U=', 'wallet_preprocessed_v2'],
]);

/** `wallet v5 r1` -> `wallet_v5r1`, `wallet v5 beta` -> `wallet_v5_beta`. */
function interfaceName(type: WalletType): string {
  const [, version, revision] = type.split(' ');
  return revision === 'beta' ? `wallet_${version}_beta` : `wallet_${version}${revision}`;
}
