"""Slides from talk videos: OpenCV sampling, perceptual dedupe, slide-region crop, manifest v4."""

from rvault_video_extraction.__about__ import __version__

__all__ = ["__version__"]
