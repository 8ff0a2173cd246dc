"""`--jobs`: the per-file work in forked workers gives the same inventory bytes as one process."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import Walker
from scanner.targets.base import FileEntry
from scanner.targets.registry import open_target
from scanner.targets.walker import WalkOptions
from tests.conftest import SAMPLE_VM, write
from tests.imagebuild import layer_tar, oci_layout, tree_members

MODELS = ["claude-opus-4-1", "claude-sonnet-4-5", "gpt-5.1", "gemini-2.5-pro", "muse-2.0", "kimi-k2"]


def _document(target: Walker, catalog: Catalog, jobs: int) -> str:
    doc = json.loads(dumps(api.scan(target, api.ScanRequest(ScanOptions(jobs=jobs)), catalog)))
    doc.pop("stats")
    return json.dumps(doc, sort_keys=True)


def test_sample_vm_is_the_same_with_one_or_two_jobs(catalog: Catalog) -> None:
    one = _document(Walker(str(SAMPLE_VM)), catalog, 1)
    assert one == _document(Walker(str(SAMPLE_VM)), catalog, 2)


@pytest.fixture(scope="module")
def tree_2000(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 files of the kinds a VM holds: configs, env files, source, logs, package metadata, links."""
    root = tmp_path_factory.mktemp("tree2000")
    for i in range(2000):
        model = MODELS[i % len(MODELS)]
        kind = i % 8
        if kind == 0:
            write(root, f"/etc/app{i}/config.yaml", f"model: {model}\nbase_url: https://api{i % 7}.example.com/v1\n")
        elif kind == 1:
            write(root, f"/etc/app{i}/agent.env", f"ANTHROPIC_MODEL={model}\nAGENT_KILL_SWITCH={i % 2}\n")
        elif kind == 2:
            code = f"from anthropic import Anthropic\nclient.messages.create(model='{model}')\n"
            write(root, f"/opt/src/m{i}.py", code)
        elif kind == 3:
            write(root, f"/var/log/app/{i}.log", f"{i} routed to {model} via api.openai.com\n" * 20)
        elif kind == 4:
            write(root, f"/usr/lib/python3/site-packages/pkg{i}-1.0.dist-info/METADATA",
                  f"Metadata-Version: 2.1\nName: pkg{i}\nVersion: 1.0\n\nmentions {model}\n")
        elif kind == 5:
            write(root, f"/home/u/notes/{i}.md", f"# notes\nwe tried {model} last week\n")
        elif kind == 6:
            write(root, f"/srv/data/{i}.json", json.dumps({"deployment": f"d{i}", "model": model}))
        else:
            target = root / f"etc/app{i - 7}/config.yaml"
            (root / "links").mkdir(exist_ok=True)
            os.symlink(f"/etc/app{i - 7}/config.yaml", root / f"links/{i}.yaml")
            if target.exists():
                os.link(target, root / f"links/hard{i}.yaml")
    return root


def test_a_2000_file_tree_is_the_same_with_one_or_two_jobs(tree_2000: Path, catalog: Catalog) -> None:
    one = _document(Walker(str(tree_2000)), catalog, 1)
    assert one == _document(Walker(str(tree_2000)), catalog, 2)
    assert one == _document(Walker(str(tree_2000)), catalog, 3)


def test_results_waiting_past_their_bound_hold_back_new_batches_not_the_answer(
    tree_2000: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small batches, and no room for results waiting behind the first: each batch is folded before the next
    # goes out once one has finished, and the fold order (walk order) still decides the inventory.
    from scanner import pool

    monkeypatch.setattr(pool, "BATCH_FILES", 7)
    monkeypatch.setattr(pool, "WAITING_RESULT_BYTES", 0)
    assert _document(Walker(str(tree_2000)), catalog, 2) == _document(Walker(str(tree_2000)), catalog, 1)


def test_the_waiting_results_are_the_pickled_bytes_of_finished_batches() -> None:
    from collections import deque
    from concurrent.futures import Future

    from scanner import pool

    done, other, running, failed = Future[bytes](), Future[bytes](), Future[bytes](), Future[bytes]()
    done.set_result(b"x" * 10)
    other.set_result(b"y" * 20)
    failed.set_exception(OSError("worker gone"))  # its batch raises when folded; it holds no result
    pending: deque[pool._Pending] = deque(([], [], fut, 0) for fut in (done, running, failed, other))
    assert pool._waiting(pending) == 30


def _bytes_of(size: int) -> bytes:
    return b"x" * size


def test_a_stopped_pool_ends_while_its_workers_send_results_bigger_than_a_pipe() -> None:
    # A worker killed in the middle of sending a result left the executor's thread waiting for the rest of the
    # message for ever, and the interpreter's exit waits for that thread: Ctrl-C printed its line and hung.
    from scanner import pool

    for _ in range(5):
        workers = pool.new_pool(2)
        futures = [workers.submit(_bytes_of, 8 << 20) for _ in range(40)]
        futures[0].result()  # the workers are sending 8 MiB results now
        manager = workers._executor_manager_thread  # type: ignore[attr-defined]
        pool.stop_pool(workers)
        assert manager is not None and not manager.is_alive()
        assert not multiprocessing.active_children()
        assert any(f.cancelled() for f in futures)


def test_a_batch_told_to_stop_fails_rather_than_give_part_of_its_results(monkeypatch: pytest.MonkeyPatch) -> None:
    from scanner import pool

    monkeypatch.setattr(pool, "_work", object())
    monkeypatch.setattr(pool, "_told_to_stop", True)
    entry = FileEntry("/etc/agent.yaml", 10, 0o100644, 0, 0)
    with pytest.raises(pool.WorkerStopped):
        pool._analyze([entry])


def test_a_container_image_is_the_same_with_one_or_two_jobs(tmp_path: Path, catalog: Catalog) -> None:
    image = oci_layout(tmp_path / "img", [layer_tar(tree_members(SAMPLE_VM))])

    def doc(jobs: int) -> str:
        opened = open_target(str(image), None, WalkOptions())
        try:
            assert opened.target.shareable
            return _document(opened.target, catalog, jobs)  # type: ignore[arg-type]
        finally:
            opened.close()

    assert doc(1) == doc(2)


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(tmp_path), "--jobs", "0"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr == "modelcensus: error: --jobs must be at least 1, not 0\n"


def test_a_file_reached_twice_is_read_once_and_located_at_both(tmp_path: Path, catalog: Catalog) -> None:
    write(tmp_path, "/etc/agent/models.yaml", "model: claude-opus-4-1\n")
    os.link(tmp_path / "etc/agent/models.yaml", tmp_path / "etc/agent/models-copy.yaml")
    (tmp_path / "etc/current.yaml").symlink_to("/etc/agent/models-copy.yaml")
    for jobs in (1, 2):
        inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(ScanOptions(jobs=jobs)), catalog)
        assert (inv.stats.files_seen, inv.stats.files_read) == (3, 1)
        (model,) = [m for m in inv.models if m.name == "claude-opus-4-1"]
        assert {(loc.path, loc.via) for loc in model.locations} == {
            ("/etc/agent/models.yaml", None),
            ("/etc/agent/models-copy.yaml", None),
            ("/etc/agent/models-copy.yaml", "/etc/current.yaml"),
        }
