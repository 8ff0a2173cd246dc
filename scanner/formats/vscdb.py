"""An editor's global state (`User/globalStorage/state.vscdb`): VS Code, VSCodium, Cursor and Windsurf keep each
extension's settings as one JSON value in the SQLite table `ItemTable(key, value)`, under the extension's id.

Read from the bytes already read, query-only and bounded (`scanner.sessions.sqlite_store`). Each JSON row becomes
settings items under its key (`saoudrizwan.claude-dev.apiProvider`); `secret://…` rows hold encrypted blobs and
are never read.
"""

from __future__ import annotations

import sqlite3

from scanner.formats.config import ConfigItem, ParseFailure, parse_json
from scanner.sessions.sqlite_store import StoreBudgetExceeded, capped, is_table, open_store

_MAX_ROWS = 2_000
_MAX_VALUE = 1 << 20  # bytes of one row's JSON


def parse_vscdb(data: bytes) -> list[ConfigItem]:
    """The JSON rows of `ItemTable` as items under their key; raises ParseFailure when it is no such store."""
    items: list[ConfigItem] = []
    try:
        with open_store(data) as con:
            if not is_table(con, "ItemTable"):
                raise ParseFailure("no ItemTable")
            rows = con.execute(
                f"SELECT key, {capped('value', _MAX_VALUE)} FROM ItemTable "
                "WHERE key NOT LIKE 'secret://%' ORDER BY key LIMIT ?",
                (_MAX_ROWS,),
            ).fetchall()
    except (sqlite3.Error, StoreBudgetExceeded, ValueError) as exc:
        raise ParseFailure(f"state store: {exc}") from exc
    for key, value in rows:
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not isinstance(key, str) or not isinstance(text, str) or not text.lstrip().startswith("{"):
            continue
        try:
            parsed = parse_json(text)
        except ParseFailure:
            continue
        items += [ConfigItem((key, *it.path), it.value, None) for it in parsed]
    return items
