"""Calls tonstream's v3 endpoints through the toncenter Python SDK (PyPI `toncenter`) and checks its answers.

    python toncenter_sdk_check.py BASE_URL KNOWN_JSON

KNOWN_JSON names, per endpoint (keys of CALLS), the SDK method's arguments and what the answer must
hold: {"GET /blocks": {"args": {...}, "expect": {"count": N, "contains": [...], "items": [...]}}}.
`contains`: each entry matches some item; `items`: the items in order, one entry each; an entry
matches when every key it names matches (nested objects the same way, lists item by item).

Each answer must (1) parse with the SDK's own method and models, (2) also validate in pydantic's
strict mode (the SDK parses leniently: "5" passes as an int there, a client in another language
would reject it), (3) be non-empty (unless `count` is 0) and carry the expected values. Prints one JSON line:
{endpoint: {"ok", "model", "items", "unmodelled"} or {"ok": false, "error"}}; exits 1 naming each
failed endpoint. `unmodelled` lists the answer's keys the SDK's models have no field for (Model.key).
"""

from __future__ import annotations

import asyncio
import json
import sys
import typing as t

import aiohttp
from pydantic import BaseModel, RootModel, TypeAdapter, ValidationError
from toncenter.rest.client import ToncenterRestClient
from toncenter.rest.v3.models import DecodeRequest


def rows(mapping: BaseModel) -> list[dict[str, t.Any]]:
    """A map answer (AddressBook, Metadata) as items: each row with its key as `key`."""
    return [{"key": k, **v} for k, v in mapping.model_dump(mode="json").items()]


def dumped(answer: list[BaseModel] | None) -> list[t.Any]:
    if answer is None:
        raise AssertionError("the answer's list is missing or null")
    return [x.model_dump(mode="json") for x in answer]


# Endpoint -> (SDK resource, SDK method, items of the parsed answer).
CALLS: dict[str, tuple[str, str, t.Callable[[t.Any], list[t.Any]]]] = {
    "GET /masterchainInfo": ("blockchain", "get_masterchain_info", lambda r: [r.model_dump(mode="json")]),
    "GET /blocks": ("blockchain", "get_blocks", lambda r: dumped(r.blocks)),
    "GET /masterchainBlockShards": ("blockchain", "get_masterchain_block_shards", lambda r: dumped(r.blocks)),
    "GET /masterchainBlockShardState": ("blockchain", "get_masterchain_block_shard_state", lambda r: dumped(r.blocks)),
    "GET /transactions": ("blockchain", "get_transactions", lambda r: dumped(r.transactions)),
    "GET /transactionsByMasterchainBlock": ("blockchain", "get_transactions_by_masterchain_block", lambda r: dumped(r.transactions)),
    "GET /transactionsByMessage": ("blockchain", "get_transactions_by_message", lambda r: dumped(r.transactions)),
    "GET /adjacentTransactions": ("blockchain", "get_adjacent_transactions", lambda r: dumped(r.transactions)),
    "GET /messages": ("blockchain", "get_messages", lambda r: dumped(r.messages)),
    "GET /accountStates": ("accounts", "get_account_states", lambda r: dumped(r.accounts)),
    "GET /walletStates": ("accounts", "get_wallet_states", lambda r: dumped(r.wallets)),
    "GET /addressBook": ("accounts", "get_address_book", rows),
    "GET /metadata": ("accounts", "get_metadata", rows),
    "GET /topAccountsByBalance": ("stats", "get_top_accounts_by_balance", dumped),
    "GET /decode": ("utils", "get_decode", lambda r: [r.model_dump(mode="json")]),
    "POST /decode": ("utils", "post_decode", lambda r: [r.model_dump(mode="json")]),
}


class RecordingResponse(aiohttp.ClientResponse):
    """Keeps the body the SDK read, so the same bytes can be checked strictly and for unknown keys."""

    last_text: t.ClassVar[str | None] = None

    async def text(self, encoding: str | None = None, errors: str = "strict") -> str:
        body = await super().text(encoding, errors)
        RecordingResponse.last_text = body
        return body


def matches(want: t.Any, got: t.Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and matches(v, got[k]) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(map(matches, want, got))
    return want == got


def unmodelled(parsed: t.Any, raw: t.Any) -> set[str]:
    """`Model.key` for each key of `raw` that the parsed model has no field for, at any depth."""
    if isinstance(parsed, RootModel):
        return unmodelled(parsed.root, raw)
    if isinstance(parsed, BaseModel) and isinstance(raw, dict):
        fields = type(parsed).model_fields
        found = {f"{type(parsed).__name__}.{k}" for k in raw if k not in fields}
        for k in fields.keys() & raw.keys():
            found |= unmodelled(getattr(parsed, k), raw[k])
        return found
    if isinstance(parsed, list) and isinstance(raw, list):
        return set().union(*(unmodelled(p, r) for p, r in zip(parsed, raw)))
    if isinstance(parsed, dict) and isinstance(raw, dict):
        return set().union(*(unmodelled(parsed[k], raw[k]) for k in parsed.keys() & raw.keys()))
    return set()


def type_name(tp: t.Any) -> str:
    args = t.get_args(tp)
    return f"{tp.__name__}[{', '.join(map(type_name, args))}]" if args else tp.__name__


def is_parsed_as(answer: t.Any, tp: t.Any) -> bool:
    if t.get_origin(tp) is list:
        return isinstance(answer, list) and all(is_parsed_as(x, t.get_args(tp)[0]) for x in answer)
    return isinstance(answer, tp)


def brief(items: list[t.Any]) -> str:
    return json.dumps(items[:3])[:600]


def check_expectations(items: list[t.Any], expect: dict[str, t.Any]) -> None:
    if not items and expect.get("count") != 0:
        raise AssertionError("empty answer")
    if "count" in expect and len(items) != expect["count"]:
        raise AssertionError(f"{len(items)} items, expected {expect['count']}")
    for want in expect.get("contains", []):
        if not any(matches(want, got) for got in items):
            raise AssertionError(f"no item matches {json.dumps(want)[:300]}; got {brief(items)}")
    if "items" in expect and not matches(expect["items"], items):
        raise AssertionError(f"items differ from {json.dumps(expect['items'])[:300]}; got {brief(items)}")


async def check(client: ToncenterRestClient, endpoint: str, spec: dict[str, t.Any]) -> dict[str, t.Any]:
    resource, method, items_of = CALLS[endpoint]
    call = getattr(getattr(client.v3, resource), method)
    args = spec.get("args", {})
    RecordingResponse.last_text = None
    answer = await call(DecodeRequest(**args)) if method == "post_decode" else await call(**args)
    raw = json.loads(RecordingResponse.last_text or "null")
    # The model the SDK declares for the method (topAccountsByBalance: list[AccountBalance]).
    model = t.get_type_hints(call)["return"]
    try:
        TypeAdapter(model).validate_python(raw, strict=True)
    except ValidationError as err:
        raise AssertionError(f"the SDK parsed it leniently, strict validation failed: {err}") from err
    if not is_parsed_as(answer, model):
        raise AssertionError(f"the SDK returned {type(answer).__name__}, not {type_name(model)}")
    items = items_of(answer)
    check_expectations(items, spec.get("expect", {}))
    return {
        "ok": True,
        "model": type_name(model),
        "items": len(items),
        "unmodelled": sorted(unmodelled(answer, raw)),
    }


async def run(base_url: str, known: dict[str, t.Any]) -> dict[str, dict[str, t.Any]]:
    missing = CALLS.keys() - known.keys()
    results: dict[str, dict[str, t.Any]] = {e: {"ok": False, "error": "no known values given"} for e in missing}
    async with aiohttp.ClientSession(response_class=RecordingResponse, timeout=aiohttp.ClientTimeout(total=60)) as session:
        # No key, no client-side throttle (the SDK limits keyless clients to 1 rps), no retries: a 5xx is a failure.
        client = ToncenterRestClient(base_url=base_url, session=session, rps_limit=0, retry_policy=None)
        for endpoint, spec in known.items():
            if endpoint not in CALLS:
                results[endpoint] = {"ok": False, "error": "not an endpoint of this check"}
                continue
            try:
                results[endpoint] = await check(client, endpoint, spec)
            # Any error (HTTP, the SDK's parse, strict validation, a value) fails this endpoint only.
            except Exception as err:  # noqa: BLE001
                results[endpoint] = {"ok": False, "error": f"{type(err).__name__}: {err}"[:2000]}
    return results


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2], encoding="utf-8") as f:
        known = json.load(f)
    results = asyncio.run(run(sys.argv[1], known))
    print(json.dumps(results, sort_keys=True))
    failed = sorted(e for e, r in results.items() if not r["ok"])
    for e in failed:
        print(f"toncenter SDK check failed: {e}: {results[e]['error']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
