"""Runs a plan of SQL statements in a current ClickHouse (chdb, in-process) and reports each outcome.

Used by test/integration/store-chdb.test.ts to replay the store's DDL and read queries, as
ClickHouse 18.16 ran them, on a current engine.

    python test/python/chdb_run.py PLAN.json > RESULT.json

PLAN.json: {"steps": [{"sql": "...", "settings": {"name": "value"}, "format": "JSONEachRow" | null,
"data": "..." | null}]}. A step with `data` sends it after the statement on the next line (an INSERT
with inline rows); `format` null runs the statement for its effect only. Settings are applied with
SET before the step; settings a previous step set and this one does not are reset to DEFAULT, so each
statement runs with exactly the settings its HTTP request carried.

RESULT.json: {"version": "...", "results": [{"ok": true, "rows": ["<JSON line>", ...]} |
{"ok": false, "error": "..."}]}, one per step. A failing step does not stop the run.
"""

import json
import re
import shutil
import sys
import tempfile

import chdb.session

SETTING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def run(plan):
    path = tempfile.mkdtemp(prefix="tonstream-chdb-")
    session = chdb.session.Session(path)
    try:
        version = str(session.query("SELECT version()", "TabSeparated")).strip()
        active = {}
        results = []
        for step in plan["steps"]:
            settings = step.get("settings") or {}
            try:
                for name in [n for n in active if n not in settings]:
                    session.query(f"SET {name} = DEFAULT")
                    del active[name]
                for name, value in settings.items():
                    if not SETTING_NAME.match(name):
                        raise ValueError(f"not a setting name: {name!r}")
                    if active.get(name) != value:
                        session.query(f"SET {name} = {quote(value)}")
                        active[name] = value
                sql = step["sql"] if step.get("data") is None else step["sql"] + "\n" + step["data"]
                fmt = step.get("format")
                if fmt is None:
                    session.query(sql)
                    results.append({"ok": True, "rows": []})
                else:
                    text = str(session.query(sql, fmt))
                    results.append({"ok": True, "rows": [line for line in text.split("\n") if line != ""]})
            except Exception as err:  # noqa: BLE001 - every engine error is a finding to report
                results.append({"ok": False, "error": str(err)})
        return {"version": version, "results": results}
    finally:
        session.close()
        shutil.rmtree(path, ignore_errors=True)


def quote(value):
    """A setting value as SQL: integers as they are, anything else as a quoted string."""
    text = str(value)
    if text.lstrip("-").isdigit():
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chdb_run.py PLAN.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    json.dump(run(plan), sys.stdout)


if __name__ == "__main__":
    main()
