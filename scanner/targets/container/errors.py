"""The one error of image reading: a clear, one-line reason the CLI prints (exit 2)."""


class ImageError(Exception):
    pass
