"""Subscribes through the toncenter SDK's own streaming clients (PyPI `toncenter`, unmodified; only
the base URL points at tonstream) and prints every notification as one JSON line, then `DONE`.

Environment: STREAM_BASE_URL, STREAM_TRANSPORT (sse|ws), STREAM_ADDRESSES (comma-separated),
STREAM_MIN_FINALITY, STREAM_UNTIL_MC (stop after a finalized transactions event at or above this
masterchain seqno), STREAM_TIMEOUT_S, STREAM_API_KEY (a key of the API's key store).
"""
import asyncio
import json
import os
import sys

from toncenter.streaming import ToncenterSSE, ToncenterWebSocket


async def main() -> None:
    base = os.environ["STREAM_BASE_URL"]
    transport = os.environ.get("STREAM_TRANSPORT", "sse")
    addresses = os.environ["STREAM_ADDRESSES"].split(",")
    until = int(os.environ["STREAM_UNTIL_MC"])
    cls = ToncenterSSE if transport == "sse" else ToncenterWebSocket
    client = cls(api_key=os.environ.get("STREAM_API_KEY", "tonstream-test"), network="testnet", base_url=base)
    stop = asyncio.Event()

    async def consume() -> None:
        await client.create_session()
        try:
            async for n in client.subscribe(
                addresses=addresses,
                types=["transactions", "account_state_change"],
                min_finality=os.environ.get("STREAM_MIN_FINALITY", "confirmed"),
                stop=stop,
            ):
                print(json.dumps({"class": type(n).__name__, **n.model_dump()}), flush=True)
                if n.type == "transactions" and n.finality == "finalized":
                    if max(t["mc_block_seqno"] for t in n.transactions) >= until:
                        stop.set()
                        return
        finally:
            await client.close_session()

    try:
        await asyncio.wait_for(consume(), timeout=float(os.environ.get("STREAM_TIMEOUT_S", "120")))
    except asyncio.TimeoutError:
        print("TIMEOUT", file=sys.stderr)
        sys.exit(2)
    print("DONE", flush=True)


asyncio.run(main())
