import { appendFileSync } from 'node:fs';
import { Cell, Dictionary } from '@ton/core';
import { shardHex, toBase64 } from '@tonstream/block';
import { MASTERCHAIN, ROOT_SHARD } from '@tonstream/localnet';
import { existsSync, readFileSync } from 'node:fs';
export function ledgerRound(r, producedAtMs) {
    return { mc_seqno: r.mc.id.seqno, gen_utime: r.mc.genUtime, produced_at_ms: producedAtMs, blocks: [...r.shards, r.mc].map(ledgerBlock) };
}
/**
 * Appends the rounds the chain holds but the ledger lacks (the key block a new chain starts with,
 * rounds before the ledger was switched on), so the ledger covers the chain from its first kept round.
 */
export function catchUpLedger(path, chain) {
    const last = existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).pop() : undefined;
    const from = last ? JSON.parse(last).mc_seqno + 1 : 1;
    let written = 0;
    for (let seqno = from; seqno <= chain.head().seqno; seqno++) {
        const mc = chain.getBlock({ workchain: MASTERCHAIN, shard: ROOT_SHARD, seqno });
        const shards = chain.shardsAt(seqno);
        if (!mc || !shards)
            continue; // no longer kept
        appendFileSync(path, JSON.stringify(ledgerRound({ mc, shards }, Date.now())) + '\n');
        written++;
    }
    return written;
}
function ledgerBlock(b) {
    return {
        workchain: b.id.workchain,
        shard: shardHex(b.id.shard),
        seqno: b.id.seqno,
        root_hash: toBase64(b.id.rootHash),
        file_hash: toBase64(b.id.fileHash),
        transactions: b.transactions.map((t) => {
            const { inMsg, outMsgs } = messageHashes(Cell.fromBoc(Buffer.from(t.boc))[0]);
            return { hash: toBase64(t.hash), account: t.account.toUpperCase(), lt: t.lt.toString(), in_msg: inMsg, out_msgs: outMsgs };
        }),
    };
}
/** transaction$0111 … ^[ in_msg:(Maybe ^(Message Any)) out_msgs:(HashmapE 15 ^(Message Any)) ] … */
function messageHashes(tx) {
    const msgs = tx.refs[0].beginParse();
    const inMsg = msgs.loadBit() ? msgs.loadRef().hash().toString('base64') : null;
    const out = msgs.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
    return { inMsg, outMsgs: [...out.values()].map((c) => c.hash().toString('base64')) };
}
export function appendLedger(path, r) {
    appendFileSync(path, JSON.stringify(ledgerRound(r, Date.now())) + '\n');
}
//# sourceMappingURL=ledger.js.map