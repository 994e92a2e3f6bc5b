"""The check the session fixture runs on its server's trace-level log (`secrets_in`) finds what it
must: a noted secret in any case, a JWT nobody noted, a private key block; and lets a device token
shortened for the log pass."""

from __future__ import annotations

from herald_support import make_jwt, new_p256_pem, note_secret, random_hex_token, secrets_in


def test_the_log_check_finds_noted_secrets_any_jwt_and_private_keys_but_not_shortened_device_tokens():
    device_token = note_secret(random_hex_token())
    user_token = note_secret("hrld_u_" + random_hex_token(16))
    pem = new_p256_pem()
    stranger_jwt = make_jwt(pem, "KEYID12345", "TEAMID1234")
    assert secrets_in(f"device.token={device_token[:8]}… pushed\n") == []
    assert secrets_in(f"token={device_token.upper()}\n") == [device_token]
    assert secrets_in(f"authorization: Bearer {user_token}\n") == [user_token]
    assert secrets_in(f"jwt {stranger_jwt}\n") == [stranger_jwt]
    unnoted = stranger_jwt[:-4] + "abcd"  # a JWT the suite never made (say, by `herald push`)
    assert secrets_in(f"authorization=bearer {unnoted}") == [unnoted]
    [key_line] = [line for line in pem.splitlines() if not line.startswith("-----")][:1]
    assert secrets_in(f"key: {key_line}") == [key_line]
    assert secrets_in(pem.splitlines()[0]) == ["-----BEGIN PRIVATE KEY-----"]
