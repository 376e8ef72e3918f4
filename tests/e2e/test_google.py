"""Google sign-in in the browser (online.md ON-A01) through a stand-in Google that the test
starts: its stand-in of the Google Identity Services script draws the button, its own key signs
the ID tokens, and the server checks them against its key set. The page runs under the
server's real Content-Security-Policy, which must let the script's origin in."""

import os
import secrets
import tempfile

import pytest

from conftest import Served, shot
from standins.google import GoogleStandIn
from test_account import fill, fresh_name, sign_up


@pytest.fixture(scope="module")
def google(server):
    """The stand-in Google and a server that trusts it, both under the first server's
    certificate (which the test browser trusts)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    standin = GoogleStandIn(cert, key, "velha-web.apps.googleusercontent.com",
                            "velha-desktop.apps.googleusercontent.com")
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, [*standin.server_args(), "--tls-cert", cert, "--tls-key", key])
        yield standin, served
        served.stop()
    standin.stop()


@pytest.fixture
def page(browser, google):
    _, served = google
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR", bypass_csp=False)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    yield page
    context.close()
    assert not errors, errors


def google_user(standin):
    tag = secrets.token_hex(4)
    standin.user = {"sub": "g-" + tag, "email": f"g{tag}@example.com", "email_verified": True}
    return standin.user


def open_account(page):
    page.click("[data-action=account]")
    page.wait_for_selector("[data-google=ready]", timeout=15000)


def test_on_a01_google_first_time_asks_a_name_then_signs_straight_in(page, google):
    standin, _ = google
    user = google_user(standin)
    open_account(page)
    shot(page, "google-button")
    page.click("[data-standin=google-button]")
    page.wait_for_selector("[data-form=google-name]", timeout=15000)
    page.click("[data-form=google-name] [data-action=submit]")
    assert page.inner_text("[data-form=google-name] [data-problem]") == "Escolha um nome de jogador."
    name = fresh_name()
    page.fill("[data-form=google-name] input[name=name]", name)
    shot(page, "google-choose-name")
    page.click("[data-form=google-name] [data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=name]") == name
    assert page.inner_text("[data-profile=email]") == user["email"]
    assert page.inner_text("[data-profile=google]") == "ligado"
    assert page.inner_text("[data-profile=country]") == "Brasil"
    session = {c["name"]: c for c in page.context.cookies()}["__Host-velha-session"]
    assert session["httpOnly"]
    shot(page, "google-profile")

    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-google=ready]", timeout=15000)
    page.click("[data-standin=google-button]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=name]") == name, "the second time, straight in"


def test_on_a01_google_with_a_password_accounts_email_is_explained_then_linked(page, google):
    standin, _ = google
    name = fresh_name()
    sign_up(page, name)
    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-google=ready]", timeout=15000)
    standin.user = {"sub": "g-" + secrets.token_hex(4), "email": f"{name.lower()}@example.com",
                    "email_verified": True}
    page.click("[data-standin=google-button]")
    said = page.inner_text("[data-problem=google]", timeout=15000)
    assert said == ("Já existe uma conta com o e-mail dessa conta Google. Entre com e-mail e senha "
                    "e ligue o Google no seu perfil.")
    shot(page, "google-email-taken")

    fill(page, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    page.click("[data-form=sign-in] [data-action=submit]")
    page.wait_for_selector(".link-google [data-google=ready]", timeout=15000)
    shot(page, "google-link")
    page.click(".link-google [data-standin=google-button]")
    page.wait_for_selector("[data-profile=google]", timeout=15000)
    assert page.inner_text("[data-profile=google]") == "ligado"
    assert page.query_selector(".link-google") is None

    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-google=ready]", timeout=15000)
    page.click("[data-standin=google-button]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=name]") == name, "the linked Google account signs in"

    # That Google account cannot be linked to a second account.
    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-form=sign-in]")
    page.click("[data-action=back]")
    sign_up(page, fresh_name())
    page.click(".link-google [data-standin=google-button]")
    assert page.inner_text("[data-problem=google]", timeout=15000) == \
        "Essa conta Google já entra em outra conta."


def test_on_a01_google_button_hidden_with_a_sentence_when_its_script_cannot_load(page, google):
    standin, _ = google
    page.route(standin.script_url, lambda route: route.abort())
    page.click("[data-action=account]")
    page.wait_for_selector("[data-google=unavailable]", timeout=20000)
    assert page.inner_text("[data-google-unavailable]") == (
        "O login com Google não carregou. Entre com e-mail e senha, ou tente mais tarde.")
    assert page.query_selector("[data-standin=google-button]") is None
    # E-mail and password still work beside it.
    assert page.query_selector("[data-form=sign-in]") is not None
    shot(page, "google-unavailable")

