"""BALROG's world pictures are encoded once per distinct picture in an episode: a picture
seen again gives the very bytes a fresh encoding gives, and is not encoded again.

A fresh encoding is the replay's encoder (envs.render.encode_viewer_png) of the picture's
pixels; tests/envs/test_viewer_png.py holds its pixels to those of encode_png, with which
these pictures were encoded before."""

import numpy as np

from envs.registry import make
from envs.render import encode_viewer_png


def encode_png(picture) -> bytes:
    """A fresh encoding of a PIL picture, as the replay stores it."""
    return encode_viewer_png(np.asarray(picture.convert("RGB")))


def test_a_picture_seen_again_is_not_encoded_again(monkeypatch):
    import envs.balrog.protocol as protocol

    encoded = []
    monkeypatch.setattr(protocol, "encode_viewer_png", lambda pixels: encoded.append(1) or encode_viewer_png(pixels))
    task = make("balrog/babyai-goto", "text")
    task.reset(3)
    pictures = [task.viewer_png()]
    for _ in range(4):  # four quarter turns: back where it started
        task.step("turn left")
        pictures.append(task.viewer_png())
    assert pictures[0] == pictures[4]
    assert len(encoded) == 4
    assert all(png == encode_png(task.world_picture()) for png in pictures[4:])


def test_every_picture_is_the_fresh_encoding():
    task = make("balrog/crafter", "text", max_steps=100)
    task.reset(1)
    for action in ("Noop", "Move West", "Noop", "Move East", "Do"):
        task.step(action)
        assert task.viewer_png() == encode_png(task.world_picture())


def test_babyai_pictures_named_by_their_state_are_the_fresh_drawing():
    """BabyAI's pictures are kept by the level's state (cells, agent, what it carries):
    a state seen again is not drawn again, and every picture given is the encoding of a
    fresh drawing, through pick-ups, drops and opened doors."""
    from envs.core import RandomLegalPolicy

    repeated = 0
    for task_id in ("balrog/babyai-open", "balrog/babyai-putnext", "balrog/babyai-pick-up-seq-go-to"):
        for seed in range(3):
            task = make(task_id, "text")
            task.reset(seed)
            policy = RandomLegalPolicy(seed)
            drawn = []
            draw = task.world_picture
            task.world_picture = lambda: drawn.append(1) or draw()
            states, steps = set(), 0
            while not task.done:
                states.add(task.picture_state())
                assert task.viewer_png() == encode_png(draw())
                task.step(policy.act(task))
                steps += 1
            assert len(drawn) == len(states)
            repeated += steps + 1 - len(states)
    assert repeated > 0, "random play comes back to states it saw"
