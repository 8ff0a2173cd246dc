"""What kind of image a path is, without reading the image: the sniff that tells a container image from a
directory or a disk image, the platform picked from an image index by default, and the one error of image
reading. The container and disk backends themselves are imported only when such an image is opened.
"""

from __future__ import annotations

import os
import stat

DEFAULT_PLATFORM = "linux/amd64"
CONFIG_LOCATION = "image-config"  # the path shown for settings of the image config (it is no file of the tree)


class ImageError(Exception):
    """A clear, one-line reason an image cannot be read, which the CLI prints (exit 2)."""


def is_container_image(path: str) -> bool:
    """An OCI layout directory, or a tar archive holding `manifest.json` or `index.json` at its top."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return os.path.isfile(os.path.join(path, "oci-layout")) and os.path.isfile(os.path.join(path, "index.json"))
    if not stat.S_ISREG(st.st_mode):
        return False
    import tarfile

    try:
        with tarfile.open(path, mode="r:") as tar:
            for n, member in enumerate(tar):
                if _image_member(member.name):
                    return True
                if n > 10_000:
                    break
    except (tarfile.TarError, OSError, EOFError):
        return False  # not a tar; a cut one whose first members are an image's said so above
    return False


def _image_member(name: str) -> bool:
    """A member only an image archive holds (docker save writes manifest.json last: a cut archive has blobs)."""
    name = name.lstrip("./")
    return name in ("manifest.json", "index.json", "oci-layout", "repositories") or name.startswith("blobs/") \
        or name.endswith("/layer.tar")
