"""Subscribing in the browser (online.md ON-A03) through a stand-in Stripe the test starts
(tests/standins/stripe.py): its checkout and portal pages stand for Stripe's hosted ones, and
its signed events reach the server's webhook a moment after the browser is back, as Stripe's
do. A new player on the cube screen's "Jogar online" signs up, reads the price, pays, waits
while the payment is confirmed and plays in the lobby; then cancels in the portal and reads
until when the subscription lasts. The page runs under the server's Content-Security-Policy."""

import datetime
import os
import tempfile
import urllib.parse

import pytest

from conftest import Served, no_retry_for_a_lasting_refusal, server_fails, shot
from standins.stripe import StripeStandIn
from test_account import fill, fresh_name, sign_up, subscribed_phone
from test_online import play_to_x_line

PRICE = "R$ 9,90 por mês"


@pytest.fixture(scope="module")
def stripe(server):
    """The stand-in Stripe and a server that sells through it, under the first server's
    certificate (which the test browser trusts, and the stand-in trusts for its events)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    standin = StripeStandIn()
    # Stripe's events of a paid checkout arrive a moment after it sends the browser back.
    standin.set_delay(3)
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, [*standin.flags(data), "--tls-cert", cert, "--tls-key", key,
                               "--signups-per-address-per-hour", "100000"],
                        database_env="E2E_PAYMENTS_DATABASE_URL")
        standin.configure(served.url + "api/payments/webhook", cafile=cert)
        yield standin, served
        served.stop()
    standin.close()


def new_phone(browser, served, locale="pt-BR", **options):
    """A phone (360×640, touch) at the app's home screen, under its real CSP; its page errors.
    `options`: more of the browser context's (a User-Agent, headers)."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale, bypass_csp=False,
                                  **options)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    return page, errors


@pytest.fixture
def phone_of(browser, stripe):
    """Opens phones on the selling server; each must end with no page error."""
    _, served = stripe
    opened = []

    def open_phone(locale="pt-BR", **options):
        page, errors = new_phone(browser, served, locale, **options)
        opened.append((page, errors))
        return page

    yield open_phone
    for page, errors in opened:
        page.context.close()
        assert not errors, errors


def path(page):
    return urllib.parse.urlparse(page.url).path


def price(page):
    """The price as read, the symbol's no-break space an ordinary one."""
    return page.inner_text("[data-price]", timeout=15000).replace("\xa0", " ")


def period_end(standin, session):
    """The last day of the period the checkout paid for, by the stand-in's own subscription,
    as the profile writes it: DD/MM/AAAA (UTC, the last second before the period's end)."""
    subscription = standin.subscriptions[standin.subscription_of(session)]
    end = datetime.datetime.fromtimestamp(subscription["current_period_end"] - 1, datetime.timezone.utc)
    return end.strftime("%d/%m/%Y")


def test_on_a03_a_new_player_subscribes_plays_online_and_cancels(phone_of, browser, stripe):
    standin, served = stripe
    ana = phone_of()
    name = fresh_name()
    # From the cube screen, online play leads to signing up, then on to subscribing.
    ana.click("[data-game=cube]")
    ana.click("[data-mode=online]")
    ana.click("[data-action=sign-in]")
    ana.wait_for_selector("[data-form]")
    if ana.get_attribute("[data-form]", "data-form") != "sign-up":
        ana.click("[data-action=switch-form]")
    fill(ana, name=name, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    ana.click("[data-action=submit]")
    assert price(ana) == PRICE
    assert path(ana) == "/assinatura"
    assert "Mini ranking" in ana.inner_text(".offer")
    shot(ana, "subscription-offer")

    ana.click("[data-action=checkout]")
    ana.wait_for_selector("[data-standin=pay]", timeout=15000)
    assert ana.url.startswith(standin.url + "/pay/")
    session_id = ana.url.rsplit("/", 1)[1]
    session = standin.sessions[session_id]
    assert session["locale"] == "pt-BR", "the checkout speaks the app's language"
    shot(ana, "subscription-standin-checkout")
    ana.click("[data-standin=pay]")
    # Back before Stripe's events: the app waits for them.
    ana.wait_for_selector("[data-confirming]", timeout=15000)
    assert ana.inner_text("[data-confirming]") == "Confirmando o pagamento…"
    assert path(ana) == "/assinatura/confirmando"
    shot(ana, "subscription-confirming")
    ana.wait_for_selector("[data-action=create-match]", timeout=30000)
    assert path(ana) == "/cubo/online"
    assert "sessao" not in ana.url, "the checkout's id stays behind"
    shot(ana, "subscription-lobby")

    # A match against another subscriber, to a line.
    other = fresh_name()
    bia = subscribed_phone(browser, served, other)
    bia.click("[data-action=account]")
    bia.click("[data-action=play-online]")
    for page in (ana, bia):
        page.click("[data-scope=mundial]")
        page.click("[data-level='1']")
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]")
    bia.click(f"[data-join='{name}']", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    for page in (ana, bia):
        page.click("[data-action=buttons]")
    play_to_x_line(ana, bia)
    shot(ana, "subscription-match-won")
    bia.context.close()

    # The profile says when it renews (the period's end, not the grace after), and the portal
    # cancels it.
    day = period_end(standin, session_id)
    ana.click("[data-action=lobby]")
    ana.click("[data-action=back]")
    ana.click("[data-action=account]")
    renewing = f"Assinante até {day}, renova automaticamente"
    ana.wait_for_selector("[data-profile=subscription]:has-text('renova')", timeout=15000)
    assert ana.inner_text("[data-profile=subscription]") == renewing
    shot(ana, "subscription-profile-renewing")
    ana.click("[data-action=manage-subscription]")
    ana.wait_for_selector("[data-standin=cancel]", timeout=15000)
    shot(ana, "subscription-standin-portal")
    ana.click("[data-standin=cancel]")
    ana.wait_for_selector("[data-standin=subscription][data-cancel-at-period-end=true]")
    ana.click("[data-standin=return]")
    ana.wait_for_selector("[data-profile=subscription]:has-text('cancelada')", timeout=15000)
    assert path(ana) == "/conta"
    assert ana.inner_text("[data-profile=subscription]") == f"Assinatura cancelada, vale até {day}"
    shot(ana, "subscription-profile-canceled")
    # Canceled, it still opens online play until its last day.
    assert ana.get_attribute(".online-gate", "data-subscriber") == "true"


def test_on_a03_the_profile_of_a_non_subscriber_leads_to_subscribing(phone_of):
    page = phone_of()
    sign_up(page, fresh_name())
    assert page.inner_text("[data-profile=subscription]") == "Sem assinatura"
    assert "para assinantes" in page.inner_text(".online-gate")
    assert page.query_selector("[data-action=manage-subscription]") is None, "nothing to manage"
    shot(page, "subscription-profile-none")
    page.click(".online-gate [data-action=subscribe]")
    assert price(page) == PRICE
    assert path(page) == "/assinatura"
    # Back goes to the profile, and so does the screen's own "Voltar".
    page.go_back()
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    page.click(".online-gate [data-action=subscribe]")
    voltar_from_the_offer_leads_to(page, "[data-profile=name]", "/conta")
    # The mini rankings' "Assinar" leads back to them; online play's gate, which the
    # subscription replaces, home.
    page.goto(page.url.replace("/conta", "/grupos"))
    page.click(".online-gate [data-action=subscribe]")
    voltar_from_the_offer_leads_to(page, ".online-gate [data-action=subscribe]", "/grupos")
    page.goto(page.url.replace("/grupos", "/cubo/online"))
    voltar_from_the_offer_leads_to(page, "[data-game=classic]", "/")


def voltar_from_the_offer_leads_to(page, shown, where):
    """Once the subscription shows its price, its "Voltar" opens the screen `shown` marks, at
    the address `where`."""
    assert price(page) == PRICE
    page.click("nav.top [data-action=back]")
    page.wait_for_selector(shown, timeout=15000)
    assert path(page) == where


def test_on_a03_a_subscription_the_server_failed_to_send_is_read_again_with_a_tap(phone_of):
    """The subscription's page says why it could not read the offer and reads it again with a
    tap; a refusal asking again cannot change (payments not set up) offers no tap."""
    page = phone_of(service_workers="block")
    sign_up(page, fresh_name())
    server_fails(page, "**/api/subscription")
    page.click(".online-gate [data-action=subscribe]")
    said = page.wait_for_selector("[data-problem=subscription]", timeout=15000)
    assert said.inner_text() == "O servidor não conseguiu atender agora. Tente de novo."
    shot(page, "subscription-server-failed")
    # The server is back: the tap shows the price, with no reload.
    page.unroute("**/api/subscription")
    page.click("[data-action=retry]")
    assert price(page) == PRICE
    assert page.query_selector("[data-problem=subscription]") is None
    assert page.query_selector("[data-action=retry]") is None
    no_retry_for_a_lasting_refusal(page, "**/api/subscription", "subscription",
                                   code="payments_unavailable", message="not set up")


def test_on_a03_a_checkout_abandoned_comes_back_to_the_subscription(phone_of, stripe):
    standin, _ = stripe
    page = phone_of()
    sign_up(page, fresh_name())
    page.click(".online-gate [data-action=subscribe]")
    page.click("[data-action=checkout]")
    page.wait_for_selector("[data-standin=back]", timeout=15000)
    checkout, opened = page.url, standin.opened_checkouts()
    page.click("[data-standin=back]")
    assert price(page) == PRICE
    assert path(page) == "/assinatura"
    shot(page, "subscription-abandoned")
    # Asked again while it is open, the same checkout.
    page.click("[data-action=checkout]")
    page.wait_for_selector("[data-standin=pay]", timeout=15000)
    assert (page.url, standin.opened_checkouts()) == (checkout, opened)


def test_on_a03_the_price_reads_in_english(phone_of):
    page = phone_of("en-US")
    sign_up(page, fresh_name())
    page.click(".online-gate [data-action=subscribe]")
    assert price(page) == "R$9.90 a month"
    assert page.inner_text("[data-action=checkout]") == "Subscribe"
    shot(page, "subscription-offer-en")
