"""video-extraction's test data: talk videos with a known slide sequence.

It lives in the dev-only testkit, not in the ``rvault-video-extraction``
wheel: a user's install never needs it; the package's tests, conformance and
its benchmark do. ``synthetic`` needs the ``[video-extraction]`` extra of the
testkit (OpenCV, NumPy) and FFmpeg for H.264 talks; ``conference``, an
independent second generator (different drawing code, Pillow-rendered
slides, a filmed noisy speaker), also needs Pillow from that extra.
"""
