#!/usr/bin/python3
"""Writes legacy_vault.yml: a vault in the original coyote's format (the
gman local provider's envelopes), made with libsodium (Debian's
python3-nacl) rather than with this package, so that the Go reader is
checked against an independent implementation of Argon2id and
XChaCha20-Poly1305. Not run by the tests; run it by hand to regenerate:

    /usr/bin/python3 testdata/make_legacy_vault.py > testdata/legacy_vault.yml

The password is in legacy_password.txt. Salts and nonces are fixed so the
output is reproducible.
"""
import base64
import hashlib

from nacl import bindings as b

PASSWORD = b"legacy password 123"


def envelope(name, value, m, t, aad_kind, zero_key=False):
    salt = hashlib.sha256(b"salt " + name.encode()).digest()[:16]
    nonce = hashlib.sha256(b"nonce " + name.encode()).digest()[:24]
    if zero_key:
        key = bytes(32)
    else:
        key = b.crypto_pwhash_alg(32, PASSWORD, salt, t, m * 1024,
                                  b.crypto_pwhash_ALG_ARGON2ID13)
    params = "m=%d,t=%d,p=1" % (m, t)
    aad = "$VAULT;v1;argon2id;" + params if aad_kind == "current" else "$VAULT;v1"
    ct = b.crypto_aead_xchacha20poly1305_ietf_encrypt(value.encode(), aad.encode(), nonce, key)
    return "$VAULT;v1;argon2id;%s;salt=%s;nonce=%s;ct=%s" % (
        params, base64.b64encode(salt).decode(), base64.b64encode(nonce).decode(),
        base64.b64encode(ct).decode())


entries = [
    # The original's real costs, and its current additional data.
    ("OPENAI_API_KEY", "sk-legacy-openai", 19456, 2, "current", False),
    # Cheap costs keep the tests fast; older additional data.
    ("OLD_TOKEN", "old-token-\u00fcn\u00efc\u00f8d\u00e9-\U0001F511", 64, 1, "old", False),
    # The oldest files: an all-zero key.
    ("ZERO_KEY_SECRET", "zero-key-value", 64, 1, "old", True),
]
for name, value, m, t, kind, zero in entries:
    print("%s: %s" % (name, envelope(name, value, m, t, kind, zero)))
