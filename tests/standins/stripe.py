"""A stand-in for Stripe Billing, started by the tests (docs/payments.md).

It is what the server talks to instead of https://api.stripe.com, and what the browser sees
instead of Stripe's hosted pages:

- the API the server calls, as Stripe answers it: `POST /v1/checkout/sessions` (subscription
  mode) and `POST /v1/billing_portal/sessions`, form-encoded, `Authorization: Bearer <secret
  key>`, `Idempotency-Key` honoured, errors as Stripe's `{"error": {"type", "code", "message",
  "param"}}` with its statuses (401 for a wrong key, 400 for a bad parameter, 404 for a missing
  customer, 409 for an idempotency key in use); `DELETE /v1/subscriptions/<id>` ends one at
  once (404 `resource_missing` for an unknown id); `POST /v1/checkout/sessions/<id>/expire`
  closes an open checkout page (400 for one no longer open);
- a checkout page (`/pay/<session>`): `[data-standin=pay]` pays, `[data-standin=back]` backs
  out to the cancel URL; a portal page (`/portal/<session>`): `[data-standin=cancel]` cancels
  at the period's end, `[data-standin=resume]` undoes that, `[data-standin=return]` goes back;
- webhook events of API version 2024-06-20, signed exactly as Stripe signs them
  (`Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body" under the endpoint's whole
  whsec_ secret>,v0=<a test-mode signature, never valid>`), sent at will: on time, several
  times, several at once, out of order, late, forged, with an old timestamp.

Python tests use the class; the server's Rust tests run `python3 tests/standins/stripe.py`,
which prints one JSON line (`url`, `secret_key`, `webhook_secret`, `price`) and takes the same
calls as `POST /_standin/<method>` with the keyword arguments as a JSON object, answering the
result as JSON. The server's flags: `flags(folder)`. `delay` (seconds) holds back the events
of a checkout paid in the browser, as Stripe's arrive a moment after its redirect.
"""

import hashlib
import hmac
import html
import http.server
import json
import secrets
import ssl
import sys
import threading
import time
import urllib.parse
import urllib.request

API_VERSION = "2024-06-20"
PERIOD = {"month": 30 * 86400, "year": 365 * 86400}


def new_id(prefix):
    return f"{prefix}_{secrets.token_hex(12)}"


class StripeError(Exception):
    def __init__(self, status, kind, message, code=None, param=None):
        super().__init__(message)
        self.status, self.body = status, {"error": {
            "type": kind, "message": message, **({"code": code} if code else {}),
            **({"param": param} if param else {})}}


class StripeStandIn:
    """One Stripe account with one price on sale. `clock` is Stripe's time (unix seconds);
    tests move it with `advance`."""

    def __init__(self, price="price_velha_mensal", amount=990, currency="brl", interval="month"):
        self.secret_key = "sk_test_" + secrets.token_hex(16)
        self.webhook_secret = "whsec_" + secrets.token_hex(16)
        self.price = {"id": price, "object": "price", "unit_amount": amount,
                      "currency": currency, "recurring": {"interval": interval}}
        self.offset = 0
        self.lock = threading.RLock()
        self.sessions, self.portals, self.customers = {}, {}, {}
        self.cancelled_by_api = []
        self.expired_by_api = []
        self.down = False
        self.subscriptions, self.invoices, self.charges = {}, {}, {}
        self.events, self.idempotent = {}, {}
        self.webhook_url, self.cafile = None, None
        self.deliveries = []
        self.delay = 0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    # -- set-up ----------------------------------------------------------------------------

    def flags(self, folder):
        """The server's flags for this stand-in, its secrets written into `folder`."""
        key, webhook = f"{folder}/stripe-secret-key", f"{folder}/stripe-webhook-secret"
        with open(key, "w") as f:
            f.write(self.secret_key + "\n")
        with open(webhook, "w") as f:
            f.write(self.webhook_secret + "\n")
        return ["--payments-provider", "stripe", "--stripe-api-url", self.url,
                "--stripe-secret-key-file", key, "--stripe-webhook-secret-file", webhook,
                "--stripe-price", self.price["id"], "--plan-amount", str(self.price["unit_amount"]),
                "--plan-currency", self.price["currency"].upper(),
                "--plan-period", self.price["recurring"]["interval"]]

    def configure(self, webhook_url, cafile=None):
        """Where events go (the server's /api/payments/webhook), trusting `cafile`'s certificate."""
        self.webhook_url, self.cafile = webhook_url, cafile
        return True

    def now(self):
        return int(time.time()) + self.offset

    def advance(self, seconds):
        """Moves Stripe's clock on (events made after are that much later)."""
        self.offset += seconds
        return self.now()

    def close(self):
        self.httpd.shutdown()

    # -- the API the server calls ------------------------------------------------------------

    def _api(self, method, path, headers, form):
        if headers.get("Authorization") != f"Bearer {self.secret_key}":
            raise StripeError(401, "invalid_request_error", "Invalid API Key provided: sk_***")
        if self.down:
            raise StripeError(500, "api_error", "An unknown error occurred")
        key = headers.get("Idempotency-Key")
        with self.lock:
            if key is not None and key in self.idempotent:
                seen_path, seen_form, answer = self.idempotent[key]
                if answer is None:
                    raise StripeError(409, "idempotency_error", "There is currently another in-progress "
                                      "request using this Stripe-Idempotency-Key", code="idempotency_key_in_use")
                if (seen_path, seen_form) != (path, form):
                    raise StripeError(400, "idempotency_error", "Keys for idempotent requests can only be "
                                      "used with the same parameters they were first used with.")
                return answer
            if key is not None:
                self.idempotent[key] = (path, form, None)
        try:
            if (method, path) == ("POST", "/v1/checkout/sessions"):
                answer = self._new_checkout(form)
            elif (method, path) == ("POST", "/v1/billing_portal/sessions"):
                answer = self._new_portal(form)
            elif (method == "POST" and path.startswith("/v1/checkout/sessions/")
                  and path.endswith("/expire")):
                answer = self._expire_now(path.split("/")[4])
            elif method == "DELETE" and path.startswith("/v1/subscriptions/"):
                answer = self._cancel_now(path.rsplit("/", 1)[1])
            else:
                raise StripeError(404, "invalid_request_error", f"Unrecognized request URL ({method}: {path}).")
        except StripeError:
            if key is not None:
                with self.lock:
                    del self.idempotent[key]
            raise
        if key is not None:
            with self.lock:
                self.idempotent[key] = (path, form, answer)
        return answer

    def _expire_now(self, session):
        """`POST /v1/checkout/sessions/<id>/expire`: an open page closes (its
        checkout.session.expired follows); any other is refused as Stripe refuses it."""
        with self.lock:
            s = self.sessions.get(session)
            if s is None:
                raise StripeError(404, "invalid_request_error", f"No such checkout.session: '{session}'",
                                  code="resource_missing", param="session")
            if s["status"] != "open":
                raise StripeError(400, "invalid_request_error",
                                  "Only Checkout Sessions with a status in [\"open\"] can be expired.")
            self.expired_by_api.append(session)
            ids = self.expire(session, deliver=False)
            answer = self._public(s)
        threading.Thread(target=self.send, args=(ids,), daemon=True).start()
        return answer

    def _cancel_now(self, subscription):
        """`DELETE /v1/subscriptions/<id>`: ended at once; its customer.subscription.deleted
        follows a moment later, as Stripe's does. One ended already is answered as it is."""
        with self.lock:
            sub = self.subscriptions.get(subscription)
            if sub is None:
                raise StripeError(404, "invalid_request_error", f"No such subscription: '{subscription}'",
                                  code="resource_missing", param="id")
            self.cancelled_by_api.append(subscription)
            if sub["status"] == "canceled":
                return self._public(sub)
            ids = self.end(subscription, deliver=False)
            answer = self._public(sub)
        threading.Thread(target=self.send, args=(ids,), daemon=True).start()
        return answer

    @staticmethod
    def _need(form, name):
        if not form.get(name):
            raise StripeError(400, "invalid_request_error", f"Missing required param: {name}.",
                              code="parameter_missing", param=name)
        return form[name]

    def _new_checkout(self, form):
        if self._need(form, "mode") != "subscription":
            raise StripeError(400, "invalid_request_error", "This stand-in sells subscriptions only.",
                              param="mode")
        if self._need(form, "line_items[0][price]") != self.price["id"]:
            raise StripeError(400, "invalid_request_error",
                              f"No such price: '{form['line_items[0][price]']}'", code="resource_missing",
                              param="line_items[0][price]")
        success, cancel = self._need(form, "success_url"), self._need(form, "cancel_url")
        now = self.now()
        expires_at = int(form.get("expires_at", now + 86400))
        if not now + 1800 <= expires_at <= now + 86400:
            raise StripeError(400, "invalid_request_error", "The `expires_at` timestamp must be between "
                              "30 minutes and 24 hours from Checkout Session creation.",
                              code="parameter_invalid_integer", param="expires_at")
        customer = form.get("customer")
        if customer is not None and customer not in self.customers:
            raise StripeError(400, "invalid_request_error", f"No such customer: '{customer}'",
                              code="resource_missing", param="customer")
        if customer is not None and form.get("customer_email"):
            raise StripeError(400, "invalid_request_error", "You may only specify one of these "
                              "parameters: customer, customer_email.")
        metadata = {k[len("metadata["):-1]: v for k, v in form.items()
                    if k.startswith("metadata[")}
        sub_metadata = {k[len("subscription_data[metadata]["):-1]: v for k, v in form.items()
                        if k.startswith("subscription_data[metadata][")}
        session = {
            "id": new_id("cs_test"), "object": "checkout.session", "mode": "subscription",
            "status": "open", "payment_status": "unpaid", "created": now, "expires_at": expires_at,
            "client_reference_id": form.get("client_reference_id"), "customer": customer,
            "customer_email": form.get("customer_email"), "subscription": None,
            "metadata": metadata, "locale": form.get("locale", "auto"), "livemode": False,
            "success_url": success, "cancel_url": cancel,
            "_subscription_metadata": sub_metadata,
        }
        session["url"] = f"{self.url}/pay/{session['id']}"
        with self.lock:
            self.sessions[session["id"]] = session
        return self._public(session)

    def _new_portal(self, form):
        customer = self._need(form, "customer")
        if customer not in self.customers:
            raise StripeError(400, "invalid_request_error", f"No such customer: '{customer}'",
                              code="resource_missing", param="customer")
        portal = {"id": new_id("bps"), "object": "billing_portal.session", "customer": customer,
                  "return_url": form.get("return_url"), "created": self.now(), "livemode": False,
                  "locale": form.get("locale")}
        portal["url"] = f"{self.url}/portal/{portal['id']}"
        with self.lock:
            self.portals[portal["id"]] = portal
        return portal

    @staticmethod
    def _public(obj):
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    # -- what happens at Stripe, and its events ----------------------------------------------

    def opened_checkouts(self):
        """How many checkout sessions the server made."""
        return len(self.sessions)

    def event(self, kind, obj, previous=None):
        """A new event of `kind` about a copy of `obj` as it is now; its id."""
        event = {"id": new_id("evt"), "object": "event", "api_version": API_VERSION,
                 "created": self.now(), "livemode": False, "pending_webhooks": 1,
                 "request": {"id": None, "idempotency_key": None}, "type": kind,
                 "data": {"object": json.loads(json.dumps(self._public(obj))),
                          **({"previous_attributes": previous} if previous else {})}}
        with self.lock:
            self.events[event["id"]] = event
        return event["id"]

    def pay(self, session, deliver=True, confirmed_later=False):
        """The checkout paid with a card that works: its customer, subscription, invoice and
        payment made, and their events (sent unless `deliver` is false); the event ids. With
        `confirmed_later` the subscription is made `incomplete` and updated to `active` once
        the invoice is paid, all within one second, as when the bank asks the card holder to
        confirm."""
        with self.lock:
            s = self.sessions[session]
            if s["status"] != "open":
                raise StripeError(400, "invalid_request_error", "This Checkout Session is no longer active.")
            now = self.now()
            customer = s["customer"] or new_id("cus")
            self.customers.setdefault(customer, {"id": customer, "object": "customer",
                                                 "email": s["customer_email"]})
            sub = {"id": new_id("sub"), "object": "subscription", "customer": customer,
                   "status": "active", "cancel_at_period_end": False, "canceled_at": None,
                   "ended_at": None, "created": now, "current_period_start": now,
                   "current_period_end": now + PERIOD[self.price["recurring"]["interval"]],
                   "metadata": s["_subscription_metadata"], "latest_invoice": None,
                   "items": {"object": "list", "data": [{"id": new_id("si"), "price": self.price}]}}
            self.subscriptions[sub["id"]] = sub
            s.update(status="complete", payment_status="paid", customer=customer, subscription=sub["id"], url=None)
            ids = [self.event("checkout.session.completed", s)]
            if confirmed_later:
                sub["status"] = "incomplete"
            ids.append(self.event("customer.subscription.created", sub))
            invoice = self._invoice(sub, "subscription_create", paid=True)
            ids.append(self.event("invoice.paid", invoice))
            if confirmed_later:
                sub["status"] = "active"
                ids.append(self.event("customer.subscription.updated", sub, {"status": "incomplete"}))
        if deliver and self.delay:
            threading.Timer(self.delay, self.send, [ids]).start()
        elif deliver:
            self.send(ids)
        return ids

    def set_delay(self, seconds):
        self.delay = seconds
        return True

    def _invoice(self, sub, reason, paid):
        start, end = sub["current_period_start"], sub["current_period_end"]
        payment, charge = new_id("pi"), new_id("ch")
        invoice = {
            "id": new_id("in"), "object": "invoice", "customer": sub["customer"],
            "subscription": sub["id"], "billing_reason": reason, "created": self.now(),
            "status": "paid" if paid else "open", "paid": paid, "currency": self.price["currency"],
            "amount_due": self.price["unit_amount"], "amount_paid": self.price["unit_amount"] if paid else 0,
            "payment_intent": payment, "charge": charge, "attempt_count": 1,
            # As Stripe has them: an invoice's own period is the one before its lines'.
            "period_start": start, "period_end": start,
            "subscription_details": {"metadata": sub["metadata"]},
            "lines": {"object": "list", "has_more": False, "data": [{
                "id": new_id("il"), "object": "line_item", "price": self.price,
                "period": {"start": start, "end": end}}]},
        }
        self.invoices[invoice["id"]] = invoice
        self.charges[charge] = {"id": charge, "object": "charge", "payment_intent": payment,
                                "invoice": invoice["id"], "customer": sub["customer"],
                                "amount": self.price["unit_amount"], "amount_refunded": 0,
                                "refunded": False, "paid": paid}
        sub["latest_invoice"] = invoice["id"]
        return invoice

    def renew(self, subscription, paid=True, deliver=True):
        """The period ends and the next is charged: paid, or the card refused (the
        subscription then past_due); the event ids."""
        with self.lock:
            sub = self.subscriptions[subscription]
            previous = {"current_period_start": sub["current_period_start"],
                        "current_period_end": sub["current_period_end"], "status": sub["status"]}
            span = PERIOD[self.price["recurring"]["interval"]]
            sub["current_period_start"] = sub["current_period_end"]
            sub["current_period_end"] += span
            if not paid:
                sub["status"] = "past_due"
            invoice = self._invoice(sub, "subscription_cycle", paid)
            ids = [self.event("customer.subscription.updated", sub, previous),
                   self.event("invoice.paid" if paid else "invoice.payment_failed", invoice)]
        if deliver:
            self.send(ids)
        return ids

    def pay_retry(self, subscription, deliver=True):
        """The refused invoice paid on a retry (a new card): active again."""
        with self.lock:
            sub = self.subscriptions[subscription]
            invoice = self.invoices[sub["latest_invoice"]]
            invoice.update(status="paid", paid=True, amount_paid=invoice["amount_due"])
            self.charges[invoice["charge"]]["paid"] = True
            sub["status"] = "active"
            ids = [self.event("invoice.paid", invoice),
                   self.event("customer.subscription.updated", sub, {"status": "past_due"})]
        if deliver:
            self.send(ids)
        return ids

    def cancel(self, subscription, at_period_end=True, deliver=True):
        """Canceled by the player: at the period's end (updated), or now (deleted)."""
        with self.lock:
            sub = self.subscriptions[subscription]
            if at_period_end:
                sub.update(cancel_at_period_end=True, canceled_at=self.now())
                ids = [self.event("customer.subscription.updated", sub, {"cancel_at_period_end": False})]
            else:
                ids = self.end(subscription, deliver=False)
        if deliver:
            self.send(ids)
        return ids

    def resume(self, subscription, deliver=True):
        """The cancelation undone in the portal."""
        with self.lock:
            sub = self.subscriptions[subscription]
            sub.update(cancel_at_period_end=False, canceled_at=None)
            ids = [self.event("customer.subscription.updated", sub, {"cancel_at_period_end": True})]
        if deliver:
            self.send(ids)
        return ids

    def end(self, subscription, deliver=True):
        """The subscription ends now (customer.subscription.deleted)."""
        with self.lock:
            sub = self.subscriptions[subscription]
            now = self.now()
            sub.update(status="canceled", ended_at=now, canceled_at=sub["canceled_at"] or now)
            ids = [self.event("customer.subscription.deleted", sub)]
        if deliver:
            self.send(ids)
        return ids

    def refund(self, invoice, amount=None, deliver=True):
        """The invoice's payment refunded, in full unless `amount` says less."""
        with self.lock:
            charge = self.charges[self.invoices[invoice]["charge"]]
            charge["amount_refunded"] = charge["amount"] if amount is None else amount
            charge["refunded"] = charge["amount_refunded"] == charge["amount"]
            ids = [self.event("charge.refunded", charge)]
        if deliver:
            self.send(ids)
        return ids

    def dispute(self, invoice, outcome=None, inquiry=False, deliver=True):
        """The card holder disputes the invoice's payment; `outcome` won or lost closes it. An
        `inquiry` (the card network asking, no money taken) has the warning_… statuses and
        closes as warning_closed."""
        with self.lock:
            charge = self.charges[self.invoices[invoice]["charge"]]
            if inquiry:
                status = "warning_closed" if outcome else "warning_needs_response"
            else:
                status = outcome or "needs_response"
            dispute = {"id": "dp_" + charge["id"][3:], "object": "dispute", "charge": charge["id"],
                       "payment_intent": charge["payment_intent"], "amount": charge["amount"],
                       "reason": "fraudulent", "status": status}
            kind = "charge.dispute.closed" if outcome else "charge.dispute.created"
            ids = [self.event(kind, dispute)]
        if deliver:
            self.send(ids)
        return ids

    def expire(self, session, deliver=True):
        """The checkout page closes unpaid."""
        with self.lock:
            s = self.sessions[session]
            s.update(status="expired", url=None)
            ids = [self.event("checkout.session.expired", s)]
        if deliver:
            self.send(ids)
        return ids

    def erase_customer(self, customer):
        """The customer deleted at Stripe (an erasure asked by the card holder)."""
        with self.lock:
            del self.customers[customer]
        return True

    def outage(self, down):
        """Every API call fails with Stripe's 500 while `down`."""
        self.down = down
        return down

    def expired_by_server(self):
        """The checkout sessions the server expired through the API, in order."""
        return list(self.expired_by_api)

    def cancelled(self):
        """The subscriptions the server ended through the API, in order."""
        return list(self.cancelled_by_api)

    def customer_of_session(self, session):
        return self.sessions[session]["customer"]

    def session(self, session):
        return self._public(self.sessions[session])

    def subscription_of(self, session):
        return self.sessions[session]["subscription"]

    def latest_invoice(self, subscription):
        return self.subscriptions[subscription]["latest_invoice"]

    # -- sending events ----------------------------------------------------------------------

    def signature(self, body, t, secret=None):
        key = (secret or self.webhook_secret).encode()
        v1 = hmac.new(key, f"{t}.".encode() + body, hashlib.sha256).hexdigest()
        v0 = hmac.new(b"whsec_test_mode", f"{t}.".encode() + body, hashlib.sha256).hexdigest()
        return f"t={t},v1={v1},v0={v0}"

    def send(self, ids, signature="valid", times=1, at_once=False, age=0, body=None, together=False):
        """Delivers each event (in the order given) `times` times, all at once if `at_once`, or
        every event at once if `together`;
        `signature` is valid, forged (another secret), none, or tampered (the body changed
        after signing); `age` seconds makes the signature's time that old. The statuses."""
        if together:
            results = {}
            def one(event_id):
                results[event_id] = self.send([event_id], signature, times, at_once, age, body)
            threads = [threading.Thread(target=one, args=(i,)) for i in ids]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            return [status for i in ids for status in results[i]]
        statuses = []
        for event_id in ids:
            raw = body.encode() if body is not None else json.dumps(self.events[event_id]).encode()
            def deliver():
                t = int(time.time()) - age
                headers = {"Content-Type": "application/json; charset=utf-8",
                           "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)"}
                sent = raw
                if signature == "valid":
                    headers["Stripe-Signature"] = self.signature(raw, t)
                elif signature == "forged":
                    headers["Stripe-Signature"] = self.signature(raw, t, "whsec_" + secrets.token_hex(16))
                elif signature == "tampered":
                    headers["Stripe-Signature"] = self.signature(raw, t)
                    sent = raw.replace(b'"livemode": false', b'"livemode": true ')
                return self._post(sent, headers)
            if at_once:
                results = [None] * times
                def run(i):
                    results[i] = deliver()
                threads = [threading.Thread(target=run, args=(i,)) for i in range(times)]
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                statuses += results
            else:
                statuses += [deliver() for _ in range(times)]
        return statuses

    def _post(self, body, headers):
        if self.webhook_url is None:
            raise RuntimeError("configure(webhook_url) first")
        context = ssl.create_default_context(cafile=self.cafile) if self.cafile else None
        request = urllib.request.Request(self.webhook_url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as r:
                status = r.status
        except urllib.error.HTTPError as e:
            status = e.code
        with self.lock:
            self.deliveries.append(status)
        return status

    # -- HTTP --------------------------------------------------------------------------------

    def _page(self, title, body):
        return (f"<!doctype html><html lang=pt-BR><meta charset=utf-8>"
                f"<meta name=viewport content='width=device-width, initial-scale=1'>"
                f"<title>{html.escape(title)}</title><body style='font-family:sans-serif;"
                f"max-width:420px;margin:24px auto;padding:0 16px'>"
                f"<p style='color:#635bff;font-weight:700'>Stripe stand-in (test mode)</p>{body}</body></html>")

    def _pay_page(self, session):
        s = self.sessions.get(session)
        if s is None or s["status"] != "open" or s["expires_at"] <= self.now():
            return 404, self._page("Checkout", "<p data-standin=gone>Esta sessão de pagamento expirou.</p>")
        amount = self.price["unit_amount"] / 100
        return 200, self._page("Checkout", (
            f"<h1>Cubo da Velha</h1><p data-standin=price>{self.price['currency'].upper()} {amount:.2f} / "
            f"{self.price['recurring']['interval']}</p><p>Cartão 4242 4242 4242 4242</p>"
            f"<form method=post action='/pay/{session}'><button data-standin=pay "
            f"style='font-size:1.2rem;padding:12px 24px'>Pagar</button></form>"
            f"<p><a data-standin=back href='{html.escape(s['cancel_url'])}'>← Voltar</a></p>"))

    def _portal_page(self, portal):
        p = self.portals.get(portal)
        if p is None:
            return 404, self._page("Portal", "<p>Sessão desconhecida.</p>")
        subs = [s for s in self.subscriptions.values() if s["customer"] == p["customer"]]
        rows = "".join(
            f"<li data-standin=subscription data-status={s['status']} "
            f"data-cancel-at-period-end={str(s['cancel_at_period_end']).lower()}>{s['id']}: {s['status']}"
            + (" (cancela no fim do período)" if s["cancel_at_period_end"] else "") + "</li>"
            for s in subs)
        live = [s for s in subs if s["status"] != "canceled"]
        buttons = ""
        if live and not live[0]["cancel_at_period_end"]:
            buttons += (f"<form method=post action='/portal/{portal}/cancel'><button data-standin=cancel>"
                        f"Cancelar assinatura</button></form>")
        elif live:
            buttons += (f"<form method=post action='/portal/{portal}/resume'><button data-standin=resume>"
                        f"Renovar assinatura</button></form>")
        return 200, self._page("Portal", (
            f"<h1>Sua assinatura</h1><ul>{rows}</ul>{buttons}"
            f"<p><a data-standin=return href='{html.escape(p['return_url'] or '/')}'>← Voltar</a></p>"))

    def _handler(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body, kind="application/json", location=None):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Request-Id", new_id("req"))
                self.end_headers()
                self.wfile.write(data)

            def _body(self):
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_GET(self):
                parts = self.path.split("?")[0].strip("/").split("/")
                if len(parts) == 2 and parts[0] == "pay":
                    status, page = standin._pay_page(parts[1])
                elif len(parts) == 2 and parts[0] == "portal":
                    status, page = standin._portal_page(parts[1])
                else:
                    status, page = 404, standin._page("Stripe", "<p>Not found</p>")
                self._answer(status, page, "text/html; charset=utf-8")

            def do_DELETE(self):
                path = self.path.split("?")[0]
                self._body()
                try:
                    return self._answer(200, json.dumps(standin._api("DELETE", path, self.headers, {})))
                except StripeError as e:
                    return self._answer(e.status, json.dumps(e.body))

            def do_POST(self):
                path = self.path.split("?")[0]
                raw = self._body()
                parts = path.strip("/").split("/")
                try:
                    if path.startswith("/v1/"):
                        form = dict(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))
                        answer = standin._api("POST", path, self.headers, form)
                        return self._answer(200, json.dumps(answer))
                    if parts[0] == "_standin" and len(parts) == 2:
                        kwargs = json.loads(raw or b"{}")
                        if parts[1].startswith("_") or not hasattr(standin, parts[1]):
                            return self._answer(404, json.dumps({"error": f"no call {parts[1]}"}))
                        return self._answer(200, json.dumps(getattr(standin, parts[1])(**kwargs)))
                    if len(parts) == 2 and parts[0] == "pay":
                        standin.pay(parts[1])
                        s = standin.sessions[parts[1]]
                        return self._answer(303, "", "text/plain", location=s["success_url"].replace(
                            "{CHECKOUT_SESSION_ID}", s["id"]))
                    if len(parts) == 3 and parts[0] == "portal" and parts[2] in ("cancel", "resume"):
                        p = standin.portals[parts[1]]
                        for s in list(standin.subscriptions.values()):
                            if s["customer"] == p["customer"] and s["status"] != "canceled":
                                getattr(standin, parts[2])(s["id"])
                        return self._answer(303, "", "text/plain", location=f"/portal/{parts[1]}")
                except StripeError as e:
                    return self._answer(e.status, json.dumps(e.body))
                except (KeyError, TypeError, ValueError) as e:
                    return self._answer(400, json.dumps({"error": {"type": "invalid_request_error",
                                                                   "message": repr(e)}}))
                self._answer(404, json.dumps({"error": {"type": "invalid_request_error",
                                                        "message": f"Unrecognized request URL (POST: {path})."}}))

        return Handler


if __name__ == "__main__":
    s = StripeStandIn(*sys.argv[1:2])
    print(json.dumps({"url": s.url, "secret_key": s.secret_key, "webhook_secret": s.webhook_secret,
                      "price": s.price["id"]}), flush=True)
    threading.Event().wait()
