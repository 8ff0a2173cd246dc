"""What looks at the bytes. One module per detector; this tuple is the one registry.

No detector depends on another having run: what several need of one file (its config parse, which marks
every location of a file that would not parse with `parse_error`) is computed once on the `FileView`.
"""

from __future__ import annotations

from scanner.detectors.agent_configs import AgentConfigDetector
from scanner.detectors.agent_files import AgentFileDetector
from scanner.detectors.agent_native import NativeAgentDetector
from scanner.detectors.agent_packages import AgentPackageDetector
from scanner.detectors.agent_settings_files import AgentSettingsDetector
from scanner.detectors.binaries import BinaryDetector
from scanner.detectors.compressed import CompressedDetector
from scanner.detectors.config_files import ConfigDetector
from scanner.detectors.content import ContentDetector
from scanner.detectors.contract import Detector
from scanner.detectors.ecosystems import EcosystemDetector
from scanner.detectors.keyfiles import KeyFileDetector
from scanner.detectors.local_models import LocalModelDetector
from scanner.detectors.lockfiles import LockfileDetector
from scanner.detectors.manifests import ManifestDetector
from scanner.detectors.packages import InstalledPackageDetector
from scanner.detectors.programs import ProgramDetector
from scanner.detectors.session_logs import SessionDetector
from scanner.detectors.source import SourceDetector
from scanner.fileview.view import FileView

DETECTORS: tuple[Detector, ...] = (
    ConfigDetector(),
    ContentDetector(),
    CompressedDetector(),
    InstalledPackageDetector(),
    ManifestDetector(),
    KeyFileDetector(),
    SessionDetector(),
    BinaryDetector(),
    AgentConfigDetector(),
    AgentPackageDetector(),
    AgentFileDetector(),
    NativeAgentDetector(),
    AgentSettingsDetector(),
    ProgramDetector(),
    EcosystemDetector(),
    LockfileDetector(),
    SourceDetector(),
    LocalModelDetector(),
)

__all__ = ["DETECTORS", "Detector", "FileView"]
