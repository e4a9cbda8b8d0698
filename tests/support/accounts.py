"""One signed-up user and the two ways a submitter reaches the arena with it: the API
with a token (as a script would) and the site with a session (as a browser would).

Fixtures: a test module takes them with
``from tests.support.accounts import api, browser, user  # noqa: F401 (fixtures)``."""

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


USERNAME = "submitter"
PASSWORD = "a long enough password"


@pytest.fixture
def user(db):
    return User.objects.create_user(USERNAME, password=PASSWORD)


@pytest.fixture
def api(user):
    """The API, authenticated with a token of `user`'s."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def browser(client, user):
    """The site, signed in as `user`."""
    client.force_login(user)
    return client
