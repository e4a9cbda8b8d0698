"""API keys at rest: Fernet-encrypted with ARENA_ENCRYPTION_KEY (never SECRET_KEY)."""

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    return Fernet(settings.ARENA_ENCRYPTION_KEY.encode())


def encrypt_secret(plaintext: str) -> str:
    if not plaintext:
        return ""
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt_secret(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        # Raised when the operator rotated ARENA_ENCRYPTION_KEY without re-encrypting;
        # the message names the setting, never the ciphertext.
        raise ValueError("stored API key cannot be decrypted with the current ARENA_ENCRYPTION_KEY") from None
