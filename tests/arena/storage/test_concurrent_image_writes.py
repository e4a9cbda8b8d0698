"""Episodes played in threads of one worker store the same frame at the same moment (a
TextAtari submission's four scenario runs share their seeds, so their first screens are
identical). Each must store it without failing the other: one such collision ended a
TextAtari episode as "failed" with a FileNotFoundError on the image's rename."""

import threading

from arena.storage import images


def _frame(index: int) -> bytes:
    # Not a decodable picture, but stored the same way: by the hash of its bytes.
    return b"\x89PNG\r\n\x1a\n" + index.to_bytes(4, "big") * 64


def test_threads_storing_the_same_frame_at_once_all_succeed(settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    monkeypatch.setattr(images, "_files", set())
    threads_per_frame, frames = 8, 40
    failures: list[BaseException] = []

    def store(frame: bytes, barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            images.write_png_bytes(frame, 1, 1)
        except BaseException as exc:  # noqa: BLE001 - the failure is what the test reports
            failures.append(exc)

    for index in range(frames):
        frame = _frame(index)
        barrier = threading.Barrier(threads_per_frame)
        threads = [threading.Thread(target=store, args=(frame, barrier)) for _ in range(threads_per_frame)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        monkeypatch.setattr(images, "_files", set())  # every frame goes to the disk again

    assert not failures, failures[:3]
    stored = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert len(stored) == frames
    assert not [p for p in stored if p.name.endswith(".tmp")]
    assert images.image_path(images.write_png_bytes(_frame(3), 1, 1).sha256).read_bytes() == _frame(3)
