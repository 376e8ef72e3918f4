"""A stand-in SMTP submission server (RFC 5321, RFC 6409) for the tests of the server's e-mail
(docs/mail.md): what a mail provider's submission port is to the server.

It is `aiosmtpd` (a real SMTP server) on loopback that requires AUTH (PLAIN or LOGIN, RFC 4954)
with the account it was started with before it takes a message, as a provider does: a wrong
password is answered 535, a message without AUTH 530. Each message taken is parsed as MIME and
kept: envelope sender and recipients, Subject, From, To, the plain-text and HTML bodies, and
the headers. `fail(n)` makes the next n messages answer 451 (a temporary failure the sender
must retry).

Python tests use the class; the server's Rust tests run `python3 tests/standins/smtp.py`,
which prints one JSON line (`url` of its control, `smtp_url` for `--smtp-url`) and takes the
calls as `POST /_standin/<method>` with the keyword arguments as a JSON object.
"""

import email
import email.policy
import http.server
import json
import socket
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER = "velha"
PASSWORD = "senha-do-correio"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MailStandIn:
    def __init__(self):
        self.lock = threading.Lock()
        self.received = []
        self.failing = 0
        self.refused_logins = 0
        port = free_port()
        self.controller = Controller(
            self, hostname="127.0.0.1", port=port, authenticator=self._authenticate,
            auth_required=True, auth_require_tls=False)
        self.controller.start()
        self.smtp_url = f"smtp://{USER}:{PASSWORD}@127.0.0.1:{port}"
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.controller.stop()
        self.httpd.shutdown()

    # -- what the tests do ------------------------------------------------------------------

    def messages(self, to=None):
        """The messages taken, oldest first (for one recipient when `to` is given)."""
        with self.lock:
            return [m for m in self.received if to is None or to.lower() in m["rcpt_to"]]

    def fail(self, n):
        """The next `n` messages are refused with 451 (try again later)."""
        with self.lock:
            self.failing = n
        return True

    def refused(self):
        with self.lock:
            return {"logins": self.refused_logins}

    # -- SMTP ------------------------------------------------------------------------------

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode())
        if not ok:
            with self.lock:
                self.refused_logins += 1
        return AuthResult(success=ok)

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.failing > 0:
                self.failing -= 1
                return "451 4.3.0 Temporary failure, try again later"
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        plain = message.get_body(("plain",))
        html = message.get_body(("html",))
        kept = {
            "mail_from": envelope.mail_from,
            "rcpt_to": [r.lower() for r in envelope.rcpt_tos],
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "text": plain.get_content() if plain else None,
            "html": html.get_content() if html else None,
            "headers": {k: str(v) for k, v in message.items()},
        }
        with self.lock:
            self.received.append(kept)
        return "250 2.0.0 OK"

    def _handler(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = self.path.strip("/").split("/")
                if len(parts) == 2 and parts[0] == "_standin" and not parts[1].startswith("_") \
                        and parts[1] in ("messages", "fail", "refused"):
                    result = getattr(standin, parts[1])(**json.loads(raw or b"{}"))
                    return self._answer(200, json.dumps(result))
                self._answer(404, json.dumps({"error": "not found"}))

        return Handler


if __name__ == "__main__":
    service = MailStandIn()
    print(json.dumps({"url": service.url, "smtp_url": service.smtp_url}), flush=True)
    threading.Event().wait()
