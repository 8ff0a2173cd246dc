"""Records made by real agent packages, run in the corpus's own venv (no network: a local replay server).

    <venv>/bin/python lived_drivers.py llm SPEC.json       # the `llm` package writes its logs.db
    <venv>/bin/python lived_drivers.py agents SPEC.json    # openai-agents' SQLiteSession writes its store

`llm`: each prompt goes through the package's own OpenAI chat model (`llm.get_model(...).prompt(...)`) to a
server on 127.0.0.1 that answers with the recorded response given in the spec (a real Chat Completions
response with fresh ids); the package logs prompt and response to `logs.db` as its CLI does
(`migrate` + `response.log_to_db`). `agents`: the items (Responses-API items of a real recorded response with
fresh ids) are added to a `SQLiteSession` by the package itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any


def _serve(answers: list[dict[str, Any]]) -> HTTPServer:
    queue = list(answers)

    class Replay(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = json.dumps(queue.pop(0)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Replay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_llm(spec: dict[str, Any]) -> None:
    import llm
    import sqlite_utils
    from llm.migrations import migrate

    server = _serve([x["response"] for x in spec["exchanges"]])
    os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    os.environ["OPENAI_API_KEY"] = "sk-replay-not-a-key"
    db_path = Path(spec["db"])
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite_utils.Database(db_path)
    migrate(db)
    conversation = None
    for x in spec["exchanges"]:
        model = llm.get_model(x["model"])
        if conversation is None or x.get("new_conversation"):
            conversation = model.conversation()
        response = conversation.prompt(x["prompt"], system=x.get("system"), stream=False)
        response.text()
        response.log_to_db(db)
    server.shutdown()


def run_agents(spec: dict[str, Any]) -> None:
    from agents import SQLiteSession

    async def go() -> None:
        for sid, items in spec["sessions"].items():
            session = SQLiteSession(sid, spec["db"])
            await session.add_items(items)
            session.close()

    Path(spec["db"]).parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(go())


if __name__ == "__main__":
    kind, spec_file = sys.argv[1], sys.argv[2]
    data = json.loads(Path(spec_file).read_text())
    {"llm": run_llm, "agents": run_agents}[kind](data)
