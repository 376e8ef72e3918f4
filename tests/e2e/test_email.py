"""The e-mail's links in the browser (docs/mail.md, ON-A01) at phone size, through a real SMTP
server standing in for the provider (tests/standins/smtp.py): a new player confirms the
e-mail from the link the stand-in received; another, signed out, asks "Esqueci a senha",
opens the link on another phone and chooses a new password there."""

import os
import re
import tempfile
import time
import warnings

import pytest

from conftest import Served, free_port, server_fails, shot
from test_account import fill, fresh_name, sign_up
from test_subscription import new_phone

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from standins.smtp import MailStandIn


@pytest.fixture(scope="module")
def mailing(server):
    """The stand-in provider and a server that sends through it, its links opening itself
    (under the first server's certificate, which the test browser trusts)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        standin = MailStandIn()
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, ["--smtp-url", standin.smtp_url,
                               "--mail-from", "Cubo da Velha <no-reply@velha.test>",
                               "--public-url", f"https://127.0.0.1:{port}",
                               "--tls-cert", cert, "--tls-key", key,
                               "--signups-per-address-per-hour", "100000"],
                        postgres=False, listen=f"127.0.0.1:{port}")
        yield standin, served
        served.stop()
    standin.close()


def sign_in_form(page):
    """The account screen's sign-in form, as a guest sees it there."""
    page.wait_for_selector("[data-form]", timeout=15000)
    if page.get_attribute("[data-form]", "data-form") != "sign-in":
        page.click("[data-action=switch-form]")
    page.wait_for_selector("[data-form=sign-in]")


def link_to(standin, email, path, count):
    """The link to `path` in the `count`-th message to `email`, once it came."""
    for _ in range(100):
        messages = standin.messages(email)
        if len(messages) >= count:
            text = messages[count - 1]["text"]
            found = re.search(r"https://\S+" + re.escape(path) + r"#\S+", text)
            assert found, text
            return found.group(0)
        time.sleep(0.1)
    raise AssertionError(f"no message {count} to {email}")


def test_on_a01_a_new_player_confirms_the_email_from_the_link(browser, mailing):
    standin, served = mailing
    page, errors = new_phone(browser, served)
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    sign_up(page, name)
    reminder = page.wait_for_selector("[data-email-confirmed=false]", timeout=15000)
    assert reminder.inner_text().startswith(f"Confirme o seu e-mail: enviamos um link para {email}.")
    # "Reenviar" at once: a link went a moment ago, and the player is told where to look.
    page.click("[data-action=resend]")
    said = page.wait_for_selector("[data-resent]", timeout=15000).inner_text()
    assert said == "Enviamos um link há pouco: procure-o na sua caixa de entrada e na pasta de spam."
    shot(page, "email-unconfirmed")

    link = link_to(standin, email, "/conta/confirmar", 1)
    assert link.startswith(served.url.rstrip("/"))
    page.goto(link)
    page.wait_for_selector("[data-confirmed=true]", timeout=15000)
    assert page.inner_text("[data-confirmed]") == f"Pronto: {email} está confirmado."
    shot(page, "email-confirmed")
    # A reload of the used link still reads as done, to the signed-in player.
    page.reload()
    page.wait_for_selector("[data-confirmed=true]", timeout=15000)
    page.click("[data-action=continue]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.query_selector("[data-email-confirmed]") is None
    assert not errors, errors
    page.context.close()


def test_on_a01_a_confirmation_the_server_failed_to_make_is_asked_again_with_a_tap(browser, mailing):
    standin, served = mailing
    # Routes see no service worker's fetches; a route's own fetch, made outside the browser,
    # does not know the test's certificate.
    page, errors = new_phone(browser, served, service_workers="block", ignore_https_errors=True)
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    sign_up(page, name)
    link = link_to(standin, email, "/conta/confirmar", 1)
    # A link that is no link of ours is told so, with no tap: asking again changes nothing.
    page.goto(link[:link.index("#")] + "#not-a-link-of-ours")
    page.wait_for_selector("[data-problem]", timeout=30000)
    assert page.query_selector("[data-action=retry]") is None
    server_fails(page, "**/api/email/verify")
    # From another page: a link differing only after its "#" would not load the screen anew.
    page.goto(served.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    page.goto(link)
    said = page.wait_for_selector("[data-problem]", timeout=15000)
    assert said.inner_text() == "O servidor não conseguiu atender agora. Tente de novo."
    shot(page, "email-confirm-server-failed")
    # The server is back and confirms, but its answer to the tap is lost on the way.
    page.unroute("**/api/email/verify")

    def lose(route):
        route.fetch()
        route.abort("internetdisconnected")

    page.route("**/api/email/verify", lose)
    page.click("[data-action=retry]")
    said = page.locator("[data-problem]", has_text="Sem conexão")
    said.wait_for(timeout=15000)
    assert said.inner_text() == "Sem conexão com o servidor."
    # Tapped again, the link is one used already; the account, read again, says confirmed.
    page.unroute("**/api/email/verify", lose)
    page.click("[data-action=retry]")
    page.wait_for_selector("[data-confirmed=true]", timeout=15000)
    assert page.inner_text("[data-confirmed]") == f"Pronto: {email} está confirmado."
    assert page.query_selector("[data-action=retry]") is None
    assert not errors, errors
    page.context.close()


def test_on_a01_a_forgotten_password_is_chosen_anew_on_another_phone(browser, mailing):
    standin, served = mailing
    page, errors = new_phone(browser, served)
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    sign_up(page, name)
    page.goto(link_to(standin, email, "/conta/confirmar", 1))
    page.wait_for_selector("[data-confirmed=true]", timeout=15000)
    page.click("[data-action=continue]")
    page.click("[data-action=sign-out]")
    sign_in_form(page)
    page.click("[data-action=forgot]")
    page.wait_for_selector("[data-form=forgot]")
    fill(page, email=email.upper())
    page.click("[data-action=send-link]")
    sent = page.wait_for_selector("[data-sent]", timeout=15000).inner_text()
    assert sent.startswith("Se houver uma conta com este e-mail confirmado, enviamos a ela um link")
    shot(page, "email-forgot-sent")

    other, other_errors = new_phone(browser, served)
    other.goto(link_to(standin, email, "/conta/nova-senha", 2))
    other.wait_for_selector("[data-form=new-password]", timeout=15000)
    fill(other, password="1234")
    other.click("[data-action=save-password]")
    problem = other.wait_for_selector("[data-problem]", timeout=15000).inner_text()
    assert "8" in problem, problem
    fill(other, password="nova-senha-do-cubo-7")
    shot(other, "email-new-password")
    other.click("[data-action=save-password]")
    assert other.wait_for_selector("[data-saved]", timeout=15000).inner_text() == \
        "Senha trocada. Os outros aparelhos conectados à sua conta saíram dela."
    other.click("[data-action=continue]")
    assert other.wait_for_selector("[data-profile=name]", timeout=15000).inner_text() == name

    # The old password no longer signs in; the new one does.
    page.click("[data-action=back-to-sign-in]")
    sign_in_form(page)
    fill(page, email=email, password="cubo-gira-9")
    page.click("[data-action=submit]")
    assert "senha" in page.inner_text("[data-problem]", timeout=15000).lower()
    fill(page, email=email, password="nova-senha-do-cubo-7")
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert not errors and not other_errors, (errors, other_errors)
    page.context.close()
    other.context.close()
