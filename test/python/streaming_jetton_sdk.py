"""Subscribes through the toncenter SDK's own streaming client (PyPI `toncenter`, unmodified; only the
base URL points at tonstream) with min_finality pending and prints every notification as one JSON line
(its SDK class added), until the file STREAM_STOP_FILE exists; then prints `DONE`.

Environment: STREAM_BASE_URL, STREAM_TRANSPORT (sse|ws), STREAM_ADDRESSES (comma-separated),
STREAM_TYPES (comma-separated), STREAM_STOP_FILE, STREAM_TIMEOUT_S. Prints `READY` once subscribed.
"""
import asyncio
import json
import os
import sys

from toncenter.streaming import ToncenterSSE, ToncenterWebSocket


async def main() -> None:
    base = os.environ["STREAM_BASE_URL"]
    transport = os.environ.get("STREAM_TRANSPORT", "sse")
    cls = ToncenterSSE if transport == "sse" else ToncenterWebSocket
    client = cls(api_key="tonstream-test", network="testnet", base_url=base)
    stop_file = os.environ["STREAM_STOP_FILE"]

    async def consume() -> None:
        await client.create_session()
        print("READY", flush=True)
        try:
            async for n in client.subscribe(
                addresses=os.environ["STREAM_ADDRESSES"].split(","),
                types=os.environ["STREAM_TYPES"].split(","),
                min_finality="pending",
            ):
                print(json.dumps({"class": type(n).__name__, **n.model_dump(mode="json")}), flush=True)
        finally:
            await client.close_session()

    async def until_stopped() -> None:
        while not os.path.exists(stop_file):
            await asyncio.sleep(0.2)

    task = asyncio.create_task(consume())
    stopper = asyncio.create_task(until_stopped())
    done, _ = await asyncio.wait({task, stopper}, timeout=float(os.environ.get("STREAM_TIMEOUT_S", "300")), return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()
        print("stream ended early", file=sys.stderr)
        sys.exit(3)
    if stopper not in done:
        print("TIMEOUT", file=sys.stderr)
        sys.exit(2)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    print("DONE", flush=True)


asyncio.run(main())
