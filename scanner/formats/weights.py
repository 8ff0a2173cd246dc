"""Which weight format a file is, by its magic and its name, and its header read by that format's reader.

A store's blobs carry no extension (an Ollama `sha256-…` blob, a Hugging Face blob named by its hash), so
the formats with a magic or a self-checking header are recognised by their bytes alone: GGUF, the legacy
PyTorch pickle run, safetensors (its length must fit the file and open a JSON object). The others are
recognised by magic where the name says what to expect: a zip is a PyTorch checkpoint only as `.bin`,
`.pt`, `.pth` or `.ckpt` (and only when it holds a `data.pkl`), a pickle as one of those or `.pkl`, and an
ONNX model (no magic at all) only as `.onnx`. A file named as a format but not holding it is a failure
of that format, so a `.safetensors` whose header claims 2^60 bytes is recorded, not passed over.
"""

from __future__ import annotations

from enum import Enum

from scanner.formats import gguf, onnx, pickles, safetensors, torchfile
from scanner.formats.bounded import FailureKind, FormatFailure, ReadAt

HEAD = 16  # bytes of a file `sniff` needs


class WeightFormat(str, Enum):
    GGUF = "gguf"
    SAFETENSORS = "safetensors"
    ONNX = "onnx"
    PYTORCH = "pytorch"  # a torch.save checkpoint, zip or legacy
    PICKLE = "pickle"  # a bare pickle


WeightHeader = (
    gguf.GgufHeader | safetensors.SafetensorsHeader | onnx.OnnxHeader | torchfile.PickleFile
)

_TORCH_NAMES = (".bin", ".pt", ".pth", ".ckpt")
_PICKLE_NAMES = (".pkl", ".pickle", ".joblib")
# What `sniff` can name a file by, as a detector declares it: its name's ending, its magic, or (safetensors, which
# has none) `safetensors.looks_like`.
NAME_GLOBS = tuple(f"*{end}" for end in (".gguf", ".safetensors", ".onnx", *_TORCH_NAMES, *_PICKLE_NAMES))
MAGICS = (gguf.MAGIC, torchfile.LEGACY_MAGIC)


def sniff(head: bytes, name: str, size: int) -> WeightFormat | None:
    """The format a file of `size` bytes whose first bytes are `head` and whose name is `name` claims."""
    lower = name.lower()
    if gguf.looks_like(head) or lower.endswith(".gguf"):
        return WeightFormat.GGUF
    if lower.endswith(".safetensors") or safetensors.looks_like(head, size):
        return WeightFormat.SAFETENSORS
    if torchfile.looks_like_legacy(head):
        return WeightFormat.PYTORCH
    if lower.endswith(".onnx"):
        return WeightFormat.ONNX
    if lower.endswith(_TORCH_NAMES) and (head.startswith(torchfile.ZIP_MAGIC) or pickles.looks_like(head)):
        return WeightFormat.PYTORCH
    if lower.endswith(_PICKLE_NAMES):
        return WeightFormat.PICKLE
    return None


def read_header(fmt: WeightFormat, read: ReadAt, size: int) -> WeightHeader | FormatFailure:
    """The header of a file `sniff` named `fmt`, read through the bounded positional `read`."""
    if fmt is WeightFormat.GGUF:
        return gguf.read_gguf(read, size)
    if fmt is WeightFormat.SAFETENSORS:
        return safetensors.read_safetensors(read, size)
    if fmt is WeightFormat.ONNX:
        return onnx.read_onnx(read, size)
    found = torchfile.read_pickle_file(read, size)
    if isinstance(found, FormatFailure) and found.kind is FailureKind.NOT_THIS_FORMAT:
        return FormatFailure(fmt.value, found.kind, found.detail)
    return found
