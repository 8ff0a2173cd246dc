"""Fresh ids of each real format, from a seeded generator: a repeated record keeps its provider's fingerprint.

Every shape here is the one the real samples show (shared/reference/session-fingerprints.md, table B):
Anthropic `msg_011C…`/`toolu_01…` (base58 tails), their Bedrock and Vertex forms, OpenAI `call_` + 24 base62,
Responses `msg_`/`rs_`/`ctc_` + 50 hex with the creation time at hex 18–26, `chatcmpl-` + 29 base62, Fernet
tokens (`gAAAAAB…`: version byte, 8-byte time, IV, ciphertext, HMAC), Anthropic thinking signatures (base64 of a
protobuf frame, so they begin `E`), Gemini response ids, OpenRouter `gen-<time>-<20>`, Kimi `tool_` + 24 base62,
uuid4 and uuid7.
"""

from __future__ import annotations

import base64
import random
import uuid

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
HEX = "0123456789abcdef"


class Ids:
    """All ids of one corpus come from one seeded generator, so a rebuild writes the same bytes."""

    def __init__(self, seed: int | str) -> None:
        self.rng = random.Random(seed)

    def pick(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def uuid4(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def uuid4_hex(self) -> str:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4).hex

    def uuid7(self, when: float) -> str:
        """RFC 9562 version 7: 48-bit Unix milliseconds, then random bits (Codex session and client ids)."""
        value = (int(when * 1000) & ((1 << 48) - 1)) << 80 | self.rng.getrandbits(80)
        value = (value & ~(0xF << 76)) | (0x7 << 76)
        value = (value & ~(0x3 << 62)) | (0x2 << 62)
        return str(uuid.UUID(int=value))

    # ---- Anthropic (direct, Bedrock, Vertex)
    def anthropic_msg(self, route: str = "direct") -> str:
        return {"direct": "msg_011C" + self.pick(B58, 20), "bedrock": "msg_bdrk_01" + self.pick(B58, 22),
                "vertex": "msg_vrtx_01" + self.pick(B58, 22)}[route]

    def anthropic_tool(self, route: str = "direct") -> str:
        return {"direct": "toolu_01" + self.pick(B58, 22), "bedrock": "toolu_bdrk_01" + self.pick(B58, 22),
                "vertex": "toolu_vrtx_01" + self.pick(B58, 22)}[route]

    def anthropic_request(self) -> str:
        return "req_011C" + self.pick(B58, 20)

    def bedrock_tooluse(self) -> str:
        """Bedrock Converse `toolUseId`: base64url of 16 bytes."""
        return "tooluse_" + base64.urlsafe_b64encode(self.rng.randbytes(16)).decode().rstrip("=")

    def signature(self, size: int) -> str:
        """An Anthropic thinking signature: base64 of a protobuf frame (tag 0x12, varint length, payload)."""
        body = self.rng.randbytes(size)
        length = bytearray()
        n = size
        while True:
            byte = n & 0x7F
            n >>= 7
            length.append(byte | (0x80 if n else 0))
            if not n:
                break
        return base64.b64encode(b"\x12" + bytes(length) + body).decode()

    # ---- OpenAI (Chat, Responses, Codex)
    def openai_call(self) -> str:
        while True:
            body = self.pick(B62, 24)
            if any(ch.isupper() for ch in body):
                return "call_" + body

    def chatcmpl(self) -> str:
        return "chatcmpl-" + self.pick(B62, 29)

    def responses_prefix(self, when: float) -> str:
        """The first 26 hex of a Responses id: 16 shared by one response, `01`, then the time."""
        return self.pick(HEX, 16) + "01" + f"{int(when):08x}"

    def responses_id(self, kind: str, prefix: str) -> str:
        return f"{kind}_{prefix}{self.pick(HEX, 24)}"

    def fernet(self, when: float, size: int) -> str:
        """A Fernet token's exact layout (0x80, big-endian time, IV, AES-CBC blocks, HMAC) with random bytes."""
        blocks = max(1, size // 16)
        raw = b"\x80" + int(when).to_bytes(8, "big") + self.rng.randbytes(16 + 16 * blocks + 32)
        return base64.urlsafe_b64encode(raw).decode()

    def fingerprint(self) -> str:
        return "fp_" + self.pick(HEX, 10)

    # ---- others
    def gemini_response_id(self) -> str:
        return self.pick(B62 + "-_", 23)

    def gemini_cli_tool(self, name: str, when: float) -> str:
        """Gemini CLI mints `${name}-${Date.now()}-${Math.random().toString(16).slice(2)}`."""
        return f"{name}-{int(when * 1000)}-{self.pick(HEX, 13)}"

    def openrouter_gen(self, when: float) -> str:
        return f"gen-{int(when)}-{self.pick(B62, 20)}"

    def kimi_tool(self) -> str:
        return "tool_" + self.pick(B62, 24)

    def hex(self, n: int) -> str:
        return self.pick(HEX, n)
