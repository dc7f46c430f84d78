"""Why two stages: a 64-bit pHash merges text-only changes; ours does not.

Measured on rendered slides: the classic 64-bit pHash (8x8 DCT) puts slides
that differ only in their words, and a one-bullet build, within Hamming
distance 8. The comparator (256-bit hash + pixel stage) separates them,
while compression noise and exposure drift on one slide stay "same".
"""

from __future__ import annotations

import cv2
import numpy as np
from rvault_testkit.video_extraction.synthetic import Slide, render_slide
from rvault_video_extraction.dedupe import select_retained
from rvault_video_extraction.frame_sink import thumbnail
from rvault_video_extraction.perceptual import FrameComparator, PreparedThumbnails, hamming, phash


def phash64(gray: np.ndarray) -> np.ndarray:
    small = cv2.resize(gray, (32, 32), interpolation=cv2.INTER_AREA).astype(np.float32)
    coefficients = cv2.dct(small)[:8, :8].flatten()
    return coefficients > np.median(coefficients[1:])


def thumb(slide: Slide, noise: float = 0.0, seed: int = 0, offset: int = 0) -> np.ndarray:
    image = render_slide(slide, 1280, 720).astype(np.int16) + offset
    if noise:
        image += np.random.default_rng(seed).normal(0, noise, image.shape).astype(np.int16)
    return thumbnail(np.clip(image, 0, 255).astype(np.uint8))


def comparator(shape: tuple[int, int], threshold: int = 8) -> FrameComparator:
    height, width = shape
    return FrameComparator(
        (0, 0, width, height), np.zeros(shape, bool), np.zeros(shape, np.uint8), threshold
    )


TEXT_A = Slide(
    "a",
    "Results of the study",
    ("accuracy improved", "latency halved", "costs stable"),
    background=0,
)
TEXT_B = Slide(
    "b",
    "Results of the trial",
    ("accuracy dropped", "latency doubled", "costs stable"),
    background=0,
)
BUILD_1 = Slide("b1", "Incremental", ("first bullet", "second bullet"), background=1)
BUILD_2 = Slide(
    "b2", "Incremental", ("first bullet", "second bullet", "third bullet"), background=1
)


def test_64_bit_phash_merges_text_only_changes_and_builds() -> None:
    for first, second in ((TEXT_A, TEXT_B), (BUILD_1, BUILD_2)):
        assert hamming(phash64(thumb(first)), phash64(thumb(second))) <= 8


def test_two_stage_comparator_separates_them() -> None:
    for first, second in ((TEXT_A, TEXT_B), (BUILD_1, BUILD_2)):
        a, b = thumb(first), thumb(second)
        compare = comparator(a.shape)
        verdict = compare.compare(compare.prepare(a), compare.prepare(b))
        assert verdict.distinct, verdict


def test_noise_and_exposure_drift_are_the_same_slide() -> None:
    a = thumb(TEXT_A, noise=10, seed=1)
    b = thumb(TEXT_A, noise=10, seed=2, offset=12)
    compare = comparator(a.shape)
    verdict = compare.compare(compare.prepare(a), compare.prepare(b))
    assert not verdict.distinct, verdict


def test_hash_threshold_decides_faint_layout_changes() -> None:
    """A low-contrast change (below the pixel delta) counts only when the hash says so."""
    base = np.full((180, 320), 200, np.uint8)
    faint = base.copy()
    faint[20:160, 20:150] = 218
    assert hamming(phash(base), phash(faint)) > 0
    strict, lenient = comparator(base.shape, threshold=0), comparator(base.shape, threshold=256)
    assert strict.compare(strict.prepare(base), strict.prepare(faint)).distinct
    assert not lenient.compare(lenient.prepare(base), lenient.prepare(faint)).distinct


def test_motion_mask_hides_the_speaker() -> None:
    a = thumb(TEXT_A)
    b = a.copy()
    cv2.circle(b, (280, 140), 25, 30, -1)
    ignore = np.zeros(a.shape, bool)
    ignore[100:180, 240:320] = True
    masked = FrameComparator((0, 0, 320, 180), ignore, a, 8)
    assert not masked.compare(masked.prepare(a), masked.prepare(b)).distinct
    plain = comparator(a.shape)
    assert plain.compare(plain.prepare(a), plain.prepare(b)).distinct


def test_thumbnails_prepared_on_use_select_the_same_pages() -> None:
    """The selection over lazily prepared thumbnails (at most ``keep`` held) retains exactly
    what it retains over every thumbnail prepared up front: A A B B' A with a noisy transition,
    unstable lone samples and a slide that returns."""
    slides = [TEXT_A, TEXT_A, BUILD_1, BUILD_1, BUILD_2, TEXT_B, TEXT_A, TEXT_A]
    samples = [thumb(s, noise=3, seed=i) for i, s in enumerate(slides)]
    halves = [thumb(s, noise=3, seed=100 + i) for i, s in enumerate([*slides[1:], TEXT_A])]
    halves[3] = (samples[3] // 2 + halves[3] // 2).astype(np.uint8)  # mid-fade half
    compare = comparator(samples[0].shape)
    eager = select_retained(
        compare, [compare.prepare(t) for t in samples], [compare.prepare(t) for t in halves]
    )
    lazy_samples = PreparedThumbnails(compare, samples, keep=2)
    lazy_halves = PreparedThumbnails(compare, halves, keep=2)
    assert select_retained(compare, lazy_samples, lazy_halves) == eager
    assert len(eager.retained) >= 4
    assert len(lazy_samples._recent) <= 2 and len(lazy_halves._recent) <= 2
    assert np.array_equal(lazy_samples[-1].bits, compare.prepare(samples[-1]).bits)
    assert [p.bits.tobytes() for p in lazy_samples[1:3]] == [
        compare.prepare(t).bits.tobytes() for t in samples[1:3]
    ]
