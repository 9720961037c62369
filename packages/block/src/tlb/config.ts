import type { CellTable } from '../boc/cells.js';
import { Slice } from '../boc/slice.js';
import { keyToSigned, walkHashmap } from './hashmap.js';

/** _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams; `params` maps a param number to its cell. */
export type ConfigParams = { configAddr: string; root: number; params: Map<number, number> };

export function loadConfigParams(s: Slice): ConfigParams {
  const configAddr = s.loadHash();
  const root = s.loadRef();
  return { configAddr, root, params: loadConfigDict(s.cells, root) };
}

/** A bare config dictionary (Hashmap 32 ^Cell), as a liteserver's getConfigAll returns it. */
export function loadConfigDict(cells: CellTable, root: number): Map<number, number> {
  const params = new Map<number, number>();
  walkHashmap(new Slice(cells, root, 'ConfigParams.config'), 32, (key, v) => params.set(keyToSigned(key), v.loadRef()));
  return params;
}
