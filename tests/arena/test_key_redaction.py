"""A key is removed from every error a person can see, also when the error quotes it
escaped, cut short or as an Authorization header. The submissions here are stored
directly, as rows written before keys were checked would be: the form and the API now
refuse such keys (tests/arena/web/test_submission_rules.py)."""

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User

from arena.clients.base import REDACTED, redact
from arena.models import Episode
from arena.play.runner import EpisodeRunner
from tests.conftest import new_run

CANARY = "sk-canary-7f3a9e51d2c84b06"
INJECTING = "sk-canary-7f3a9e51\nX-Injected: yes"


@pytest.mark.parametrize(
    "text, key",
    [
        (f"refused {CANARY} here", CANARY),
        # httpx quoting a header it refuses, with the key's line break escaped
        ("Illegal header value b'Bearer sk-canary-7f3a9e51\\nX-Injected: yes'", INJECTING),
        # the same key escaped by a JSON encoder
        ('{"error": "bad key sk-canary-7f3a9e51\\nX-Injected: yes"}', INJECTING),
        # an excerpt that cut the key short
        ("the server said: invalid key sk-canary-7f3a9e…", CANARY),
        ("the server said: invalid key 'sk-canary-7f'", CANARY),
        # an HTTP library's dump of the request headers
        ("headers: {'authorization': 'Bearer sk-canary-7f3a9e51d2c8'}", CANARY),
        ("Authorization: Bearer sk-canary-7f3a9e51d2c84b06-and-more", CANARY),
        ("{'x-api-key': 'sk-canary-7f3a9e51d2c'}", CANARY),
    ],
)
def test_the_key_and_any_recognisable_part_of_it_are_redacted(text, key):
    shown = redact(text, key)
    assert REDACTED in shown
    for part in ("7f3a9e", "canary-7", "X-Injected", "Injected: yes"):
        assert part not in shown, shown


def test_the_rest_of_the_message_is_kept():
    message = "The model endpoint answered HTTP 401 (check the API key): invalid key sk-canary-7f3a9e51d2c84b06."
    assert redact(message, CANARY) == "The model endpoint answered HTTP 401 (check the API key): invalid key [redacted]."
    assert redact("nothing secret here", CANARY, None, "") == "nothing secret here"
    # A credential header is redacted whatever it holds; prose about one is kept.
    assert redact("sent Authorization: Bearer other-token-123", CANARY) == "sent Authorization: Bearer [redacted]"
    assert redact("Missing bearer token in the Authorization header", CANARY) == (
        "Missing bearer token in the Authorization header"
    )
    # Too short to be worth garbling the text for.
    assert redact("abc abc", "abc") == "abc abc"


def _stored_submission(fake_model, key, owner=None):
    from arena.services.submissions import submission_create

    fields = {"name": "Old row", "base_url": fake_model.base_url, "model": "fake-model", "max_tokens": 64}
    return submission_create(owner=owner, fields=fields, api_key=key, runs=[])


@pytest.mark.django_db(transaction=True)
def test_a_key_that_cannot_be_sent_is_not_published_in_the_episode_error(fake_model, allow_loopback, play, client):
    submission = _stored_submission(fake_model, INJECTING)
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    episode = run.episodes.get()
    play(episode.id)
    episode.refresh_from_db()
    assert episode.status == Episode.FAILED
    for shown in (
        episode.error,
        client.get(f"/api/episodes/{episode.pk}/").content.decode(),
        client.get(f"/episodes/{episode.pk}/").content.decode(),
        client.get(f"/runs/{run.pk}/").content.decode(),
    ):
        assert "7f3a9e51" not in shown and "X-Injected" not in shown


@pytest.mark.django_db(transaction=True)
def test_an_internal_error_quoting_the_key_is_redacted_too(fake_model, allow_loopback):
    submission = _stored_submission(fake_model, CANARY)
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    episode = run.episodes.get()

    def crashing_agent(*args, **kwargs):
        raise RuntimeError(f"could not build headers from {CANARY[:16]}…")

    async_to_sync(EpisodeRunner("w", agent_factory=crashing_agent).run)(episode.id)
    episode.refresh_from_db()
    assert episode.status == Episode.FAILED and "RuntimeError" in episode.error
    assert "7f3a" not in episode.error


@pytest.mark.django_db
def test_the_endpoint_test_button_does_not_show_the_key(fake_model, allow_loopback, client):
    owner = User.objects.create_user("owner", password="a-long-enough-password")
    submission = _stored_submission(fake_model, INJECTING, owner=owner)
    client.force_login(owner)
    page = client.post(f"/submissions/{submission.pk}/probe/", follow=True).content.decode()
    assert "The endpoint test failed" in page
    submission.refresh_from_db()
    for shown in (page, str(submission.endpoint_probe)):
        assert "7f3a9e51" not in shown and "X-Injected" not in shown


@pytest.mark.django_db
def test_a_stored_key_that_cannot_be_sent_is_explained_by_the_endpoint_pages(fake_model, allow_loopback, client):
    """"Test endpoint" and "Edit endpoint" probe with the stored key: one no HTTP library
    can encode is a clear key error there, not a server error."""
    owner = User.objects.create_user("owner", password="a-long-enough-password")
    submission = _stored_submission(fake_model, "sk-canary-7f3a9e51é", owner=owner)
    client.force_login(owner)
    page = client.post(f"/submissions/{submission.pk}/probe/", follow=True)
    assert page.status_code == 200
    assert "The endpoint test failed: The API key contains a non-ASCII character" in page.content.decode()
    edit = client.post(f"/submissions/{submission.pk}/endpoint/", {"base_url": fake_model.base_url, "model": "fake-model"})
    assert edit.status_code == 200 and "non-ASCII" in edit.context["form"].errors["api_key"][0]
    fixed = client.post(
        f"/submissions/{submission.pk}/endpoint/", {"base_url": fake_model.base_url, "model": "fake-model", "api_key": "sk-new-key-123"}
    )
    assert fixed.status_code == 302
    submission.refresh_from_db()
    assert submission.get_api_key() == "sk-new-key-123"
