import type { Slice } from '@ton/core';
import { msgAddressInt } from './address.js';
import { type Codec, type PrintBudget, spendCell, type TlbJson, type TlbObject, TlbMismatch } from './codec.js';
import { bits, cons, hasTag, oneOf, parseTag, type Tagged } from './primitives.js';

/*
 * DNS records (TEP-81, as ton-marker's scheme writes them):
 *   text$_ chunks:(## 8) rest:(TextChunks chunks) = Text;
 *   text_chunk$_ {n:#} len:(## 8) data:(bits (len * 8)) next:(TextChunkRef n) = TextChunks (n + 1);
 *   text_chunk_empty$_ = TextChunks 0;  chunk_ref$_ ref:^(TextChunks (n + 1)) = TextChunkRef (n + 1);
 *   chunk_ref_empty$_ = TextChunkRef 0;
 *   dns_text#1eda _:Text = DNSRecord;
 *   dns_next_resolver#ba93 resolver:MsgAddressInt = DNSRecord;
 *   dns_adnl_address#ad01 adnl_addr:bits256 flags:(## 8) { flags <= 1 } proto_list:flags . 0?ProtoList = DNSRecord;
 *   proto_list_nil$0 = ProtoList;  proto_list_next$1 item:Protocol next:ProtoList = ProtoList;  proto_http#4854 = Protocol;
 *   dns_smc_address#9fd3 smc_addr:MsgAddressInt flags:(## 8) { flags <= 1 } cap_list:flags . 0?SmcCapList = DNSRecord;
 *   cap_list_nil$0 = SmcCapList;  cap_list_next$1 item:SmcCapability next:SmcCapList = SmcCapList;
 *   cap_method_seqno#5371 | cap_method_pubkey#71f4 | cap_is_wallet#2177 = SmcCapability;  cap_name#ff name:Text = SmcCapability;
 *   dns_storage_address#7473 bag_id:bits256 = DNSRecord;
 * A conditional field whose flag is clear is absent from the print.
 */

/** `Text`: the bytes of its chunks. */
export const text: Codec<Buffer> = {
  read(s) {
    const parts: Buffer[] = [];
    let cur = s;
    for (let n = cur.loadUint(8); n > 0; n--) {
      parts.push(cur.loadBuffer(cur.loadUint(8)));
      if (n > 1) cur = cur.loadRef().beginParse();
    }
    return Buffer.concat(parts);
  },
  print(s, budget) {
    const chunks = s.loadUint(8);
    const printChunks = (cur: Slice, n: number): TlbJson => {
      if (n === 0) return { '@type': 'text_chunk_empty' };
      const len = cur.loadUint(8);
      const data = cur.loadBits(len * 8).toString();
      let next: TlbJson = { '@type': 'chunk_ref_empty' };
      if (n > 1) {
        spendCell(budget);
        next = { '@type': 'chunk_ref', ref: printChunks(cur.loadRef().beginParse(), n - 1) };
      }
      return { '@type': 'text_chunk', len: String(len), data, next };
    };
    return { '@type': 'text', chunks: String(chunks), rest: printChunks(s, chunks) };
  },
};

const unit = <N extends string>(name: N, tag: string) => cons(name, tag, {});

/** A `nil$0 | next$1 item:X next:List` list: the items. */
function linkedList<T>(nil: string, next: string, item: Codec<T>): Codec<T[]> {
  return {
    read(s) {
      const items: T[] = [];
      while (s.loadBit()) items.push(item.read(s));
      return items;
    },
    print(s, budget) {
      const printFrom = (): TlbJson => (s.loadBit() ? { '@type': next, item: item.print(s, budget), next: printFrom() } : { '@type': nil });
      return printFrom();
    },
  };
}

const protocol = oneOf(unit('proto_http', '#4854'));
const protoList = linkedList('proto_list_nil', 'proto_list_next', protocol);
const capability = oneOf(
  unit('cap_method_seqno', '#5371'),
  unit('cap_method_pubkey', '#71f4'),
  unit('cap_is_wallet', '#2177'),
  cons('cap_name', '#ff', { name: text }),
);
const capList = linkedList('cap_list_nil', 'cap_list_next', capability);

/** `name#tag first:X flags:(## 8) { flags <= 1 } list:flags . 0?List`. */
function flaggedRecord<N extends string, K extends string, V, L extends string, I>(name: N, tagText: string, first: K, firstCodec: Codec<V>, listName: L, list: Codec<I[]>) {
  const tag = parseTag(tagText);
  const head = (s: Slice) => {
    if (!hasTag(s, tag)) throw new TlbMismatch(`expected ${name}`);
    s.skip(tag.bits);
  };
  const flagsOf = (s: Slice) => {
    const flags = s.loadUint(8);
    if (flags > 1) throw new TlbMismatch(`${name}: flags ${flags} > 1`);
    return flags;
  };
  type Value = { type: N; flags: number } & { [P in K]: V } & { [P in L]: I[] | null };
  const codec: Tagged<Value> = {
    name,
    tag,
    read(s) {
      head(s);
      const firstValue = firstCodec.read(s);
      const flags = flagsOf(s);
      return { type: name, [first]: firstValue, flags, [listName]: flags & 1 ? list.read(s) : null } as Value;
    },
    print(s, budget: PrintBudget) {
      head(s);
      const out: TlbObject = { '@type': name, [first]: firstCodec.print(s, budget) };
      const flags = flagsOf(s);
      out.flags = String(flags);
      if (flags & 1) out[listName] = list.print(s, budget);
      return out;
    },
  };
  return codec;
}

/** `DNSRecord`. */
export const dnsRecord = oneOf(
  cons('dns_text', '#1eda', { '': text }),
  cons('dns_next_resolver', '#ba93', { resolver: msgAddressInt }),
  flaggedRecord('dns_adnl_address', '#ad01', 'adnl_addr', bits(256), 'proto_list', protoList),
  flaggedRecord('dns_smc_address', '#9fd3', 'smc_addr', msgAddressInt, 'cap_list', capList),
  cons('dns_storage_address', '#7473', { bag_id: bits(256) }),
);

export type DnsRecord = ReturnType<typeof dnsRecord.read>;
