"""A stand-in push service (RFC 8030) for the tests of turn notices (docs/push.md): what a
browser's push service (FCM's, Mozilla's, Apple's) is to the server.

It hands out subscriptions as a browser's `PushSubscription.toJSON()` gives them (an endpoint
on this service, the user agent's P-256 public key `p256dh` and 16-byte `auth` secret), and on
each push to an endpoint it checks what the real services check, answering as they answer:

- VAPID (RFC 8292): `Authorization: vapid t=<JWT>, k=<public key>`; the JWT is ES256 under that
  key, its `aud` this service's origin, its `exp` in the future and at most 24 hours away, its
  `sub` a mailto: or https: contact. Missing or wrong: 401 (403 when the key is not the one the
  subscription was made for, as `applicationServerKey` binds it).
- `TTL` is required (400 without it); `Urgency` one of very-low, low, normal, high; `Topic` at
  most 32 characters of the URL-safe base64 alphabet.
- The body is `Content-Encoding: aes128gcm` (RFC 8188), encrypted for the subscription
  (RFC 8291); it is decrypted with the user agent's private key, at most 4096 bytes. A body
  that does not decrypt is refused with 400.

A good push is answered 201 with a `Location`, and kept decrypted in `received`; a push with
the same `Topic` as one still held replaces it (`held`, as a service does for a device that is
offline). `gone(endpoint)` makes an endpoint answer 410, `missing(endpoint)` 404, `failing(endpoint)`
500, and `hang(True)` makes every push wait without answering until `hang(False)`.

Python tests use the class; the server's Rust tests run `python3 tests/standins/webpush.py`,
which prints one JSON line (`url`) and takes the same calls as `POST /_standin/<method>` with
the keyword arguments as a JSON object, answering the result as JSON.
"""

import base64
import hashlib
import hmac
import http.server
import json
import secrets
import struct
import sys
import threading
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

URGENCIES = {"very-low", "low", "normal", "high"}
BASE64URL = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt, ikm, info, length):
    """HKDF-SHA256 (RFC 5869), one block is all RFC 8291 needs."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()[:length]


def public_bytes(key):
    return key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


class Refused(Exception):
    def __init__(self, status, why):
        super().__init__(why)
        self.status = status


class Subscription:
    def __init__(self, service, application_server_key):
        self.id = secrets.token_urlsafe(16)
        self.endpoint = f"{service.url}/push/{self.id}"
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)
        # The key the page subscribed with (applicationServerKey); None takes any.
        self.server_key = application_server_key
        self.answer = None

    def json(self):
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public_bytes(self.private)), "auth": b64url(self.auth)}}

    def decrypt(self, body):
        """RFC 8188's header (salt, record size, the sender's key), then RFC 8291's keys."""
        if len(body) < 21 + 65 + 17:
            raise Refused(400, "the body is too short for aes128gcm")
        salt, rs, idlen = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        if idlen != 65 or rs < 18:
            raise Refused(400, "the aes128gcm header is not a P-256 key and a record size")
        sender = body[21:21 + idlen]
        ciphertext = body[21 + idlen:]
        if len(ciphertext) > rs:
            raise Refused(400, "more than one record: Web Push sends one")
        try:
            shared = self.private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(
                ec.SECP256R1(), sender))
        except ValueError:
            raise Refused(400, "the sender's key is not a P-256 point")
        ikm = hkdf(self.auth, shared, b"WebPush: info\x00" + public_bytes(self.private) + sender, 32)
        cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        try:
            plain = AESGCM(cek).decrypt(nonce, ciphertext, None)
        except Exception:
            raise Refused(400, "the body does not decrypt for this subscription")
        # The last record ends with its delimiter 0x02, then any padding zeros.
        end = plain.rstrip(b"\x00")
        if not end.endswith(b"\x02"):
            raise Refused(400, "the record has no last-record delimiter")
        return end[:-1]


class PushStandIn:
    def __init__(self):
        self.lock = threading.Lock()
        self.subscriptions = {}
        self.received = []
        self.held = {}
        self.refusals = []
        self.hanging = threading.Event()
        self.hanging.set()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.hanging.set()
        self.httpd.shutdown()

    # -- what the tests do ------------------------------------------------------------------

    def subscribe(self, application_server_key=None):
        """A browser subscribing: its PushSubscription as JSON."""
        s = Subscription(self, application_server_key)
        with self.lock:
            self.subscriptions[s.id] = s
        return s.json()

    def _by_endpoint(self, endpoint):
        return self.subscriptions[endpoint.rsplit("/", 1)[1]]

    def gone(self, endpoint):
        self._by_endpoint(endpoint).answer = (410, "push subscription has unsubscribed or expired")
        return True

    def missing(self, endpoint):
        self._by_endpoint(endpoint).answer = (404, "no such subscription")
        return True

    def failing(self, endpoint):
        self._by_endpoint(endpoint).answer = (500, "the push service failed")
        return True

    def hang(self, on):
        """Every push waits without an answer while on."""
        if on:
            self.hanging.clear()
        else:
            self.hanging.set()
        return True

    def messages(self, endpoint=None):
        """The pushes taken, decrypted: endpoint, payload (JSON when it is), ttl, urgency, topic."""
        with self.lock:
            return [m for m in self.received if endpoint is None or m["endpoint"] == endpoint]

    def refused(self):
        with self.lock:
            return list(self.refusals)

    # -- checking a push --------------------------------------------------------------------

    def _vapid(self, headers, subscription):
        auth = headers.get("Authorization", "")
        if not auth.startswith("vapid "):
            raise Refused(401, "no VAPID authorization")
        fields = dict(part.strip().split("=", 1) for part in auth[len("vapid "):].split(",") if "=" in part)
        token, key = fields.get("t"), fields.get("k")
        if not token or not key:
            raise Refused(401, "the VAPID authorization needs t and k")
        try:
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
            head, claims, signature = token.split(".")
            header = json.loads(unb64url(head))
            claims = json.loads(unb64url(claims))
            raw = unb64url(signature)
        except ValueError:
            raise Refused(401, "the VAPID token or key is malformed")
        if header.get("alg") != "ES256" or len(raw) != 64:
            raise Refused(401, "the VAPID token is not ES256")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{head}.{token.split('.')[1]}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise Refused(401, "the VAPID signature is wrong")
        now = time.time()
        if claims.get("aud") != self.url:
            raise Refused(401, f"the VAPID audience is not {self.url}")
        exp = claims.get("exp")
        if not isinstance(exp, int) or exp <= now or exp > now + 86400:
            raise Refused(401, "the VAPID expiry is past or more than 24 hours away")
        sub = claims.get("sub", "")
        if not (sub.startswith("mailto:") or sub.startswith("https:")):
            raise Refused(401, "the VAPID subject is no mailto: or https: contact")
        if subscription.server_key is not None and key != subscription.server_key:
            raise Refused(403, "the VAPID key is not the one this subscription was made for")

    def _push(self, subscription_id, headers, body):
        subscription = self.subscriptions.get(subscription_id)
        if subscription is None:
            raise Refused(404, "no such subscription")
        self.hanging.wait()
        if subscription.answer is not None:
            raise Refused(*subscription.answer)
        self._vapid(headers, subscription)
        ttl = headers.get("TTL")
        if ttl is None or not ttl.isdigit():
            raise Refused(400, "TTL is required")
        urgency = headers.get("Urgency", "normal")
        if urgency not in URGENCIES:
            raise Refused(400, "Urgency is very-low, low, normal or high")
        topic = headers.get("Topic")
        if topic is not None and (len(topic) > 32 or not set(topic) <= BASE64URL):
            raise Refused(400, "a Topic is at most 32 URL-safe base64 characters")
        if headers.get("Content-Encoding") != "aes128gcm":
            raise Refused(400, "the body must be aes128gcm")
        if len(body) > 4096:
            raise Refused(413, "payloads are at most 4096 bytes")
        plain = subscription.decrypt(body)
        try:
            payload = json.loads(plain)
        except ValueError:
            payload = plain.decode(errors="replace")
        message = {"endpoint": subscription.endpoint, "payload": payload, "ttl": int(ttl),
                   "urgency": urgency, "topic": topic, "at": time.time()}
        with self.lock:
            self.received.append(message)
            self.held[(subscription.id, topic or secrets.token_hex(4))] = message
        return secrets.token_urlsafe(8)

    def _handler(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body, location=None):
                data = body.encode()
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = self.path.strip("/").split("/")
                if len(parts) == 2 and parts[0] == "_standin":
                    if parts[1].startswith("_") or not hasattr(standin, parts[1]):
                        return self._answer(404, json.dumps({"error": f"no call {parts[1]}"}))
                    result = getattr(standin, parts[1])(**json.loads(raw or b"{}"))
                    return self._answer(200, json.dumps(result))
                if len(parts) == 2 and parts[0] == "push":
                    try:
                        message = standin._push(parts[1], self.headers, raw)
                    except Refused as e:
                        with standin.lock:
                            standin.refusals.append({"status": e.status, "why": str(e)})
                        return self._answer(e.status, json.dumps({"error": str(e)}))
                    return self._answer(201, "", location=f"{standin.url}/message/{message}")
                self._answer(404, json.dumps({"error": "not found"}))

        return Handler


if __name__ == "__main__":
    service = PushStandIn()
    print(json.dumps({"url": service.url}), flush=True)
    threading.Event().wait()
