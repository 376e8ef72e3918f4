"""A stand-in for Google sign-in, started by the tests: it signs ID tokens with its own RSA key
and publishes that key as a JWKS (the server is started with its URL), serves a stand-in of the
Google Identity Services script (the web button), and is an OAuth 2.0 authorization server with
PKCE for the desktop app (authorize, then token). Google's own issuer name goes in the tokens,
so the server checks them exactly as it checks Google's.

HTTPS with the certificate the tests' browser and app already trust; the JWKS over plain HTTP
on loopback, as the server fetches it."""

import base64
import hashlib
import http.server
import json
import secrets
import ssl
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

ISSUER = "https://accounts.google.com"

GIS_SCRIPT = """(function () {
  var config = null;
  function credential() {
    return fetch(ORIGIN + '/gsi/credential', {
      method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({client_id: config.client_id})
    }).then(function (r) { return r.json(); });
  }
  window.google = {accounts: {id: {
    initialize: function (c) { config = c; },
    renderButton: function (parent, options) {
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = options.locale && options.locale.indexOf('pt') === 0
        ? 'Fazer login com o Google' : 'Sign in with Google';
      b.setAttribute('data-standin', 'google-button');
      b.onclick = function () {
        credential().then(function (a) { config.callback({credential: a.credential, select_by: 'btn'}); });
      };
      parent.appendChild(b);
    },
    prompt: function () {}, cancel: function () {}, disableAutoSelect: function () {}
  }}};
})();
"""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class GoogleStandIn:
    """`web_client` and `desktop_client` are the client ids it issues tokens to; `user` is the
    Google account that signs in next (change it between sign-ins); `deny` makes the next
    authorization answer access_denied."""

    def __init__(self, cert, key, web_client, desktop_client):
        self.web_client = web_client
        self.desktop_client = desktop_client
        self.user = {"sub": "google-1", "email": "ana.google@example.com", "email_verified": True}
        self.deny = False
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "standin-" + secrets.token_hex(4)
        self.codes = {}
        self.trades = []
        self.lock = threading.Lock()
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body, content_type="application/json", headers=()):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.send_header("access-control-allow-origin", "*")
                self.send_header("access-control-allow-headers", "content-type")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_OPTIONS(self):
                self.send(204, b"")

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/certs":
                    self.send(200, json.dumps(standin.jwks()))
                elif url.path == "/gsi/client":
                    script = GIS_SCRIPT.replace("ORIGIN", json.dumps(standin.origin))
                    self.send(200, script, "text/javascript")
                elif url.path == "/authorize":
                    status, location = standin.authorize(query)
                    if location:
                        self.send(302, b"", "text/plain", [("location", location)])
                    else:
                        self.send(status, json.dumps({"error": "invalid_request"}))
                else:
                    self.send(404, json.dumps({"error": "not_found"}))

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode()
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/gsi/credential":
                    client = json.loads(body or "{}").get("client_id")
                    if client != standin.web_client:
                        return self.send(400, json.dumps({"error": "unknown client"}))
                    self.send(200, json.dumps({"credential": standin.id_token(client)}))
                elif url.path == "/token":
                    status, answer = standin.token(dict(urllib.parse.parse_qsl(body)))
                    self.send(status, json.dumps(answer))
                else:
                    self.send(404, json.dumps({"error": "not_found"}))

        self.https = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.https.socket = context.wrap_socket(self.https.socket, server_side=True)
        self.plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"https://127.0.0.1:{self.https.server_address[1]}"
        self.jwks_url = f"http://127.0.0.1:{self.plain.server_address[1]}/certs"
        self.script_url = self.origin + "/gsi/client"
        self.authorization_url = self.origin + "/authorize"
        self.token_url = self.origin + "/token"
        for server in (self.https, self.plain):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def server_args(self):
        """The server's options that point it here."""
        return ["--google-client-id", self.web_client, "--google-desktop-client-id", self.desktop_client,
                "--google-jwks-url", self.jwks_url, "--google-script-url", self.script_url,
                "--google-authorization-url", self.authorization_url,
                "--google-token-url", self.token_url]

    def jwks(self):
        numbers = self.key.public_key().public_numbers()
        as_bytes = lambda n: n.to_bytes((n.bit_length() + 7) // 8, "big")
        return {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": self.kid,
                          "n": b64url(as_bytes(numbers.n)), "e": b64url(as_bytes(numbers.e))}]}

    def id_token(self, audience):
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": audience, "iat": now, "exp": now + 3600, **self.user}
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing = ".".join(b64url(json.dumps(part).encode()) for part in (header, claims))
        signature = self.key.sign(signing.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signing + "." + b64url(signature)

    def authorize(self, q):
        redirect = q.get("redirect_uri", "")
        loopback = redirect.startswith("http://127.0.0.1:") or redirect.startswith("http://[::1]:")
        if (q.get("client_id") != self.desktop_client or not loopback or q.get("response_type") != "code"
                or q.get("code_challenge_method") != "S256" or len(q.get("code_challenge", "")) != 43
                or "openid" not in q.get("scope", "").split()):
            return 400, None
        state = urllib.parse.quote(q.get("state", ""), safe="")
        if self.deny:
            self.deny = False
            return 302, f"{redirect}?error=access_denied&state={state}"
        code = secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = (q["code_challenge"], redirect, dict(self.user))
        return 302, f"{redirect}?code={code}&state={state}"

    def token(self, form):
        with self.lock:
            found = self.codes.pop(form.get("code", ""), None)
        self.trades.append(form)
        if found is None or form.get("grant_type") != "authorization_code":
            return 400, {"error": "invalid_grant"}
        challenge, redirect, user = found
        verifier = form.get("code_verifier", "")
        if b64url(hashlib.sha256(verifier.encode()).digest()) != challenge:
            return 400, {"error": "invalid_grant", "error_description": "PKCE verifier does not match"}
        if form.get("redirect_uri") != redirect or form.get("client_id") != self.desktop_client:
            return 400, {"error": "invalid_grant"}
        saved, self.user = self.user, user
        try:
            token = self.id_token(self.desktop_client)
        finally:
            self.user = saved
        return 200, {"id_token": token, "access_token": secrets.token_urlsafe(16),
                     "token_type": "Bearer", "expires_in": 3600, "scope": "openid email"}

    def stop(self):
        for server in (self.https, self.plain):
            server.shutdown()
            server.server_close()
