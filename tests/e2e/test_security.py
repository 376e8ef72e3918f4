"""The account's password and devices (docs/accounts.md, ON-A01) at phone size: a player sees
where they are signed in — the kind of device, the country the proxy named, when — signs
another phone out, and changes the password, which signs out every other phone."""

import os
import tempfile

import pytest

from conftest import Served, no_retry_for_a_lasting_refusal, server_fails, shot
from test_account import fill, fresh_name, open_form, sign_up
from test_subscription import new_phone

ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/131.0.0.0 Mobile Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1")


@pytest.fixture(scope="module")
def securing(server):
    """A server behind a "proxy" that names the client's country in X-Country (under the
    first server's certificate, which the test browser trusts)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, ["--country-header", "X-Country", "--tls-cert", cert,
                               "--tls-key", key, "--signups-per-address-per-hour", "100000"],
                        postgres=False)
        yield served
        served.stop()


def phone_from(browser, served, agent, country, locale="pt-BR", **options):
    """A phone (360×640, touch) of this User-Agent, in this country; its page errors.
    `options`: more of the browser context's."""
    return new_phone(browser, served, locale, user_agent=agent,
                     extra_http_headers={"X-Country": country}, **options)


def sign_in(page, served, email, password):
    """Signs in from the app's first screen."""
    page.goto(served.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    open_form(page, "sign-in")
    fill(page, email=email, password=password)
    page.click("[data-action=submit]")


def devices(page):
    """Each device listed: whether it is this one, what it is, where and when, and its
    button's words (none for this one)."""
    return page.eval_on_selector_all(
        "ul.sessions li", "all => all.map(li => [li.dataset.this, "
        "...[...li.querySelectorAll('p')].map(p => p.innerText.trim()), "
        "li.querySelector('button')?.innerText ?? null])")


def test_on_a01_a_player_signs_another_phone_out_and_changes_the_password(browser, securing):
    served = securing
    phone, errors = phone_from(browser, served, ANDROID, "BR")
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    sign_up(phone, name)
    tablet, tablet_errors = phone_from(browser, served, IPHONE, "PT")
    sign_in(tablet, served, email, "cubo-gira-9")
    tablet.wait_for_selector("[data-profile=name]", timeout=15000)

    phone.click("[data-action=security]")
    phone.wait_for_url("**/conta/seguranca")
    phone.wait_for_selector("ul.sessions li[data-this=false]", timeout=15000)
    assert devices(phone) == [
        ["true", "Chrome · Android · Este aparelho", "Brasil · Entrou agora · usado agora", None],
        ["false", "Safari · iPhone", "Portugal · Entrou agora · usado agora", "Desconectar"],
    ]
    shot(phone, "security-devices")
    # A reload keeps the screen and its list.
    phone.reload()
    phone.wait_for_selector("ul.sessions li[data-this=false]", timeout=30000)

    phone.click("li[data-this=false] [data-action=end-session]")
    phone.wait_for_selector("li[data-this=false]", state="detached", timeout=15000)
    assert phone.query_selector("[data-action=end-other-sessions]") is None
    # The other phone is signed out: its app finds it when opened again.
    tablet.goto(served.url)
    tablet.wait_for_selector("[data-game=classic]", timeout=30000)
    tablet.click("[data-action=account]")
    tablet.wait_for_selector("[data-form]", timeout=15000)
    assert tablet.query_selector("[data-profile=name]") is None

    # It signs in again (the list shows it once read again, as a reload does); the password
    # changes on the first phone, which signs it out again.
    sign_in(tablet, served, email, "cubo-gira-9")
    tablet.wait_for_selector("[data-profile=name]", timeout=15000)
    phone.reload()
    phone.wait_for_selector("ul.sessions li[data-this=false]", timeout=30000)
    fill(phone, current="not-the-password", password="roda-o-cubo-42")
    phone.click("[data-action=change-password]")
    said = phone.wait_for_selector("[data-form=change-password] [data-said=problem]", timeout=15000)
    assert said.inner_text() == "A senha atual não é esta."
    fill(phone, current="cubo-gira-9", password="roda-o-cubo-42")
    phone.click("[data-action=change-password]")
    said = phone.wait_for_selector("[data-form=change-password] [data-said=ok]", timeout=15000)
    assert said.inner_text() == ("Senha trocada. Os outros aparelhos conectados à sua conta "
                                 "saíram dela.")
    assert phone.input_value("[data-form=change-password] input[name=current]") == ""
    # The list is read again: the other phone, signed in meanwhile, is gone from it.
    phone.wait_for_selector("li[data-this=false]", state="detached", timeout=15000)
    shot(phone, "security-password-changed")
    sign_in(tablet, served, email, "cubo-gira-9")
    tablet.wait_for_selector("[data-problem]", timeout=15000)
    fill(tablet, password="roda-o-cubo-42")
    tablet.click("[data-action=submit]")
    tablet.wait_for_selector("[data-profile=name]", timeout=15000)

    # Back leads to the profile it came from.
    phone.go_back()
    phone.wait_for_selector("[data-profile=name]", timeout=15000)
    assert not errors and not tablet_errors, errors + tablet_errors
    phone.context.close()
    tablet.context.close()


def test_on_a01_the_devices_read_in_english(browser, securing):
    served = securing
    phone, errors = phone_from(browser, served, ANDROID, "XX", locale="en-US")
    sign_up(phone, fresh_name())
    phone.click("[data-action=security]")
    phone.wait_for_selector("ul.sessions li", timeout=15000)
    assert devices(phone) == [
        ["true", "Chrome · Android · This device", "Signed in just now · used just now", None]]
    assert phone.inner_text("[data-form=change-password] h2") == "Change the password"
    shot(phone, "security-english")
    assert not errors, errors
    phone.context.close()


def test_on_a01_a_device_list_the_server_failed_to_send_is_read_again_with_a_tap(browser, securing):
    served = securing
    phone, errors = phone_from(browser, served, ANDROID, "BR", service_workers="block")
    sign_up(phone, fresh_name())
    server_fails(phone, "**/api/me/sessions")
    phone.click("[data-action=security]")
    said = phone.wait_for_selector("[data-problem=sessions]", timeout=15000)
    assert said.inner_text() == "O servidor não conseguiu atender agora. Tente de novo."
    assert devices(phone) == []
    shot(phone, "security-server-failed")
    # The server is back: the tap shows the list, with no reload.
    phone.unroute("**/api/me/sessions")
    phone.click("[data-action=retry]")
    phone.wait_for_selector("ul.sessions li[data-this=true]", timeout=15000)
    assert phone.query_selector("[data-problem=sessions]") is None
    assert phone.query_selector("[data-action=retry]") is None
    no_retry_for_a_lasting_refusal(phone, "**/api/me/sessions", "sessions",
                                   code="forbidden", message="not yours")
    assert not errors, errors
    phone.context.close()
