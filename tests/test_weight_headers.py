"""Weight-file headers read from files the formats' own writers made, and from headers that lie."""

from __future__ import annotations

import os
import pickle
import struct
from pathlib import Path

import gguf
import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from safetensors.numpy import save_file

from scanner.catalog import Catalog
from scanner.formats import gguf as gguf_reader
from scanner.formats import onnx as onnx_reader
from scanner.formats import pickles, safetensors, torchfile, weights
from scanner.formats.bounded import FailureKind, FormatFailure, ReadAt, bytes_reader
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG
from tests.conftest import REPO

DATA = REPO / "tests/data/weights"


def counted(data: bytes) -> tuple[ReadAt, list[int]]:
    """A positional read over `data` that records how many bytes each call asked for."""
    asked: list[int] = []

    def read(offset: int, size: int) -> bytes:
        asked.append(size)
        return data[offset : offset + size]

    return read, asked


def write_gguf(path: Path, endianess: gguf.GGUFEndian = gguf.GGUFEndian.LITTLE, vocab: int = 1000) -> Path:
    w = gguf.GGUFWriter(str(path), "qwen3moe", endianess=endianess)
    w.add_name("Qwen3 Coder 30B A3B Instruct")
    w.add_basename("Qwen3-Coder")
    w.add_size_label("30B-A3B")
    w.add_license("apache-2.0")
    w.add_context_length(262144)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    w.add_base_model_count(1)
    w.add_base_model_name(0, "Qwen3 Coder 30B A3B Instruct")
    w.add_base_model_organization(0, "Qwen")
    w.add_token_list([f"tok{i}" for i in range(vocab)])
    w.add_token_scores([0.0] * vocab)
    w.add_chat_template("{% for m in messages %}" * 200)
    w.add_tensor("token_embd.weight", np.zeros((16, 8), dtype=np.float32))
    w.add_tensor("blk.0.ffn_gate_exps.weight", np.zeros((4, 8, 8), dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize("endian", [gguf.GGUFEndian.LITTLE, gguf.GGUFEndian.BIG])
def test_gguf_written_by_gguf_gives_its_general_keys(tmp_path: Path, endian: gguf.GGUFEndian) -> None:
    data = write_gguf(tmp_path / "m.gguf", endian, vocab=50_000).read_bytes()
    read, asked = counted(data)
    header = gguf_reader.read_gguf(read, len(data))
    assert isinstance(header, gguf_reader.GgufHeader), header
    assert (header.architecture, header.name, header.basename) == ("qwen3moe", "Qwen3 Coder 30B A3B Instruct",
                                                                   "Qwen3-Coder")  # fmt: skip
    assert (header.size_label, header.license, header.context_length) == ("30B-A3B", "apache-2.0", 262144)
    assert (header.file_type, header.quantization) == (15, "Q4_K_M")
    assert header.parameters == 16 * 8 + 4 * 8 * 8 and header.tensor_count == 2
    assert header.base_models == (gguf_reader.BaseModel("Qwen3 Coder 30B A3B Instruct", "Qwen", None),)
    assert ("qwen3moe.context_length", 262144) in header.metadata
    assert not any(k.startswith("tokenizer.") for k, _ in header.metadata)  # the vocabulary is skipped, not kept
    assert max(asked) <= 1 << 20  # read in bounded pieces, never the whole file at once


def _gguf_prefix(keys: int, tensors: int = 0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, tensors, keys)


def _kv_string(key: str, length: int, body: bytes = b"") -> bytes:
    return struct.pack("<Q", len(key)) + key.encode() + struct.pack("<IQ", 8, length) + body


@pytest.mark.parametrize(
    ("blob", "kind"),
    [
        (_gguf_prefix(1 << 40) + b"\0" * 64, FailureKind.LIMIT),  # 2^40 keys
        (_gguf_prefix(1, 1 << 40), FailureKind.LIMIT),  # 2^40 tensors
        (_gguf_prefix(1) + _kv_string("general.name", 1 << 60), FailureKind.TRUNCATED),  # a 2^60-byte string
        (_gguf_prefix(1) + struct.pack("<Q", 1 << 62) + b"k", FailureKind.TRUNCATED),  # a 2^62-byte key
        (_gguf_prefix(1) + struct.pack("<Q", 1) + b"k" + struct.pack("<IIQ", 9, 8, 1 << 40), FailureKind.LIMIT),
        (_gguf_prefix(1) + struct.pack("<Q", 1) + b"k" + struct.pack("<IIQ", 9, 0, 1 << 19), FailureKind.TRUNCATED),
        (_gguf_prefix(1) + struct.pack("<Q", 1) + b"k" + struct.pack("<I", 77), FailureKind.MALFORMED),
        (b"GGUF" + struct.pack("<I", 9) + b"\0" * 16, FailureKind.MALFORMED),
        (b"GGML" + b"\0" * 20, FailureKind.NOT_THIS_FORMAT),
    ],
)
def test_a_lying_gguf_header_is_a_failure_not_an_allocation(blob: bytes, kind: FailureKind) -> None:
    read, asked = counted(blob)
    found = gguf_reader.read_gguf(read, len(blob))
    assert isinstance(found, FormatFailure) and found.kind is kind, found
    assert sum(asked) <= len(blob) + (1 << 20)


def test_gguf_string_array_past_the_budget_is_a_limit() -> None:
    # A vocabulary of 2^20 strings of 64 bytes claims 64 MiB of header: walked only up to the header cap.
    length = 64
    body = struct.pack("<Q", 1) + b"k" + struct.pack("<IIQ", 9, 8, 1 << 20)
    one = struct.pack("<Q", length) + b"x" * length
    blob = _gguf_prefix(1) + body + one * ((gguf_reader.HEADER_BUDGET // len(one)) + 10)
    found = gguf_reader.read_gguf(bytes_reader(blob), len(blob))
    assert isinstance(found, FormatFailure) and found.kind is FailureKind.LIMIT


def test_safetensors_written_by_safetensors(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    tensors = {"embed.weight": np.zeros((10, 4), dtype=np.float16), "head.weight": np.zeros((4, 3), dtype=np.float32),
               "norm.weight": np.zeros((4,), dtype=np.float16)}  # fmt: skip
    save_file(tensors, str(path), metadata={"format": "pt", "author": "tests"})
    data = path.read_bytes()
    header = safetensors.read_safetensors(bytes_reader(data), len(data))
    assert isinstance(header, safetensors.SafetensorsHeader), header
    assert header.tensor_count == 3 and header.parameters == 40 + 12 + 4
    assert header.dtypes == (("F16", 2), ("F32", 1))
    assert header.metadata == (("author", "tests"), ("format", "pt"))
    assert header.data_size == 40 * 2 + 12 * 4 + 4 * 2 and 8 + header.header_size + header.data_size == len(data)
    assert weights.sniff(data[:16], "blob-without-a-name", len(data)) is weights.WeightFormat.SAFETENSORS


def test_safetensors_header_length_of_2_60_is_refused_unread() -> None:
    blob = struct.pack("<Q", 1 << 60) + b'{"a": 1}'
    read, asked = counted(blob)
    found = safetensors.read_safetensors(read, len(blob))
    assert isinstance(found, FormatFailure) and found.kind is FailureKind.LIMIT
    assert asked == [8]  # only the length was read
    assert weights.sniff(blob[:16], "x.safetensors", len(blob)) is weights.WeightFormat.SAFETENSORS
    assert weights.sniff(blob[:16], "blob", len(blob)) is None  # a nameless blob is not taken for one


def test_onnx_written_by_onnx(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 2], np.ones(8, dtype=np.float32).tolist())
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "tiny", [x], [y], [w])
    model = helper.make_model(graph, producer_name="tests", producer_version="1.0",
                              opset_imports=[helper.make_opsetid("", 17)])  # fmt: skip
    helper.set_model_props(model, {"license": "mit", "base_model": "tiny"})
    path = tmp_path / "tiny.onnx"
    onnx.save(model, str(path))
    data = path.read_bytes()
    header = onnx_reader.read_onnx(bytes_reader(data), len(data))
    assert isinstance(header, onnx_reader.OnnxHeader), header
    assert (header.producer_name, header.producer_version, header.ir_version) == ("tests", "1.0", model.ir_version)
    assert header.opsets == (("", 17),)
    assert dict(header.metadata) == {"license": "mit", "base_model": "tiny"}
    assert header.graph_size > 32
    assert weights.sniff(data[:16], "tiny.onnx", len(data)) is weights.WeightFormat.ONNX


def test_torch_zip_and_legacy_checkpoints_report_their_globals() -> None:
    for name, form in (("tiny_state_dict.pt", torchfile.PickleForm.ZIP),
                       ("tiny_state_dict_legacy.pt", torchfile.PickleForm.LEGACY)):  # fmt: skip
        data = (DATA / name).read_bytes()
        assert weights.sniff(data[:16], name, len(data)) is weights.WeightFormat.PYTORCH
        found = weights.read_header(weights.WeightFormat.PYTORCH, bytes_reader(data), len(data))
        assert isinstance(found, torchfile.PickleFile) and found.form is form, found
        assert found.problem is None
        assert {"collections.OrderedDict", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
                "torch.FloatStorage", "torch.BFloat16Storage"} <= set(found.globals)  # fmt: skip
    zipped = torchfile.read_pickle_file(bytes_reader((DATA / "tiny_state_dict.pt").read_bytes()), 2281)
    assert isinstance(zipped, torchfile.PickleFile) and zipped.pickle_member == "tiny_state_dict/data.pkl"


def test_torch_checkpoints_stay_within_the_safe_set(catalog: Catalog) -> None:
    for name in ("tiny_state_dict.pt", "tiny_state_dict_legacy.pt"):
        data = (DATA / name).read_bytes()
        found = torchfile.read_pickle_file(bytes_reader(data), len(data))
        assert isinstance(found, torchfile.PickleFile)
        assert LOCAL_CATALOG.of(catalog).unsafe_globals(found.globals) == ()


class _RunsCode:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("id",))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_pickle_that_runs_code_is_flagged_without_being_loaded(catalog: Catalog, protocol: int) -> None:
    data = pickle.dumps({"weights": [1.0, 2.0], "payload": _RunsCode()}, protocol=protocol)
    found = torchfile.read_pickle_file(bytes_reader(data), len(data))
    assert isinstance(found, torchfile.PickleFile) and found.form is torchfile.PickleForm.PLAIN
    system = f"{os.system.__module__}.system"  # posix.system on Linux
    assert found.globals == (system,)
    assert LOCAL_CATALOG.of(catalog).unsafe_globals(found.globals) == (system,)
    assert LOCAL_CATALOG.of(catalog).dangerous(found.globals) == (system,)


def test_stack_global_names_are_followed_through_the_memo() -> None:
    # SHORT_BINUNICODE "os", MEMOIZE, SHORT_BINUNICODE "system", MEMOIZE, BINGET 0, BINGET 1, STACK_GLOBAL
    data = b"\x80\x04\x8c\x02os\x94\x8c\x06system\x94h\x00h\x01\x93\x94."
    assert pickles.scan(data).globals == ("os.system",)
    built = b"\x80\x04N)\x93."  # STACK_GLOBAL over values that are not strings: resolved at load time
    assert pickles.scan(built).globals == (pickles.UNRESOLVED,)


def test_a_pickle_cut_short_keeps_what_it_saw() -> None:
    data = pickle.dumps(_RunsCode(), protocol=2)[:-6]
    found = pickles.scan(data)
    assert found.end is None and found.problem and found.globals == (f"{os.system.__module__}.system",)


@settings(max_examples=300)
@given(st.binary(max_size=2048))
def test_every_reader_survives_random_bytes(blob: bytes) -> None:
    for fmt in weights.WeightFormat:
        found = weights.read_header(fmt, bytes_reader(blob), len(blob))
        assert found is not None
    pickles.scan(blob)


@settings(max_examples=200)
@given(st.data())
def test_gguf_reader_survives_mutations_of_a_real_file(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    if "gguf" not in _SEED:
        _SEED["gguf"] = write_gguf(tmp_path_factory.mktemp("g") / "s.gguf").read_bytes()
    seed = _SEED["gguf"]
    blob = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(blob)))
    found = gguf_reader.read_gguf(bytes_reader(bytes(blob[:cut])), cut)
    assert isinstance(found, (gguf_reader.GgufHeader, FormatFailure))


_SEED: dict[str, bytes] = {}
