# RFC 8898 Bearer check for the test registrar (kamailio.cfg, WITH_BEARER), run by kamailio's app_python3:
# route[AUTH] calls python_exec("check", "$var(bearer)") with the Authorization header (or "").
#
# Accepted: "Bearer <JWT>" where the JWT
#   - has header alg HS256 and a valid HMAC-SHA256 signature with the secret in the environment variable
#     ATTENDANT_BEARER_SECRET (the fixture's secret);
#   - has a numeric "exp" in the future and no "nbf" in the future (no leeway);
#   - names the To-URI user as its identity: "sub", "grants.identity", or a Twilio capability "scope" with
#     "scope:client:incoming?clientName=<user>" (a scope without incoming capability is refused).
# Anything else fails; $var(bearer_error) says why (kamailio.cfg logs it). The token itself is never logged.
import base64
import hashlib
import hmac
import json
import os
import time
import urllib.parse

import KSR


def _b64url(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def verify(header, secret, user, now):
    """The reason the Authorization header value is refused, or None if it is accepted."""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "not a Bearer credential"
    parts = token.strip().split(".")
    if len(parts) != 3:
        return "not a JWT"
    try:
        head = json.loads(_b64url(parts[0]))
        claims = json.loads(_b64url(parts[1]))
        signature = _b64url(parts[2])
    except Exception:
        return "undecodable JWT"
    if not isinstance(head, dict) or head.get("alg") != "HS256":
        return "alg is not HS256"
    expected = hmac.new(secret.encode(), (parts[0] + "." + parts[1]).encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, signature):
        return "bad signature"
    if not isinstance(claims, dict):
        return "claims are no object"
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or isinstance(exp, bool):
        return "no exp"
    if exp <= now:
        return "expired"
    nbf = claims.get("nbf")
    if isinstance(nbf, (int, float)) and not isinstance(nbf, bool) and nbf > now:
        return "not yet valid"
    identities = []
    if isinstance(claims.get("sub"), str):
        identities.append(claims["sub"])
    grants = claims.get("grants")
    if isinstance(grants, dict) and isinstance(grants.get("identity"), str):
        identities.append(grants["identity"])
    scope = claims.get("scope")
    if isinstance(scope, str):
        incoming = [s for s in scope.split() if s.startswith("scope:client:incoming")]
        if not incoming:
            return "scope without incoming capability"
        for entry in incoming:
            query = urllib.parse.parse_qs(entry.partition("?")[2])
            identities.extend(query.get("clientName", []))
    if user not in identities:
        return "identity is not the To user"
    return None


class Bearer:
    def child_init(self, rank):
        return 0

    def check(self, msg, header):
        secret = os.environ.get("ATTENDANT_BEARER_SECRET", "")
        user = KSR.pv.get("$tU") or ""
        try:
            reason = verify(header or "", secret, user, time.time()) if secret else "no secret configured"
        except Exception as error:  # a bug here must refuse, not crash the worker
            reason = "checker failed: %s" % type(error).__name__
        KSR.pv.sets("$var(bearer_error)", reason or "")
        return -1 if reason else 1


def mod_init():
    return Bearer()
