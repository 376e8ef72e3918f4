"""Accounts in the browser against the real server (online.md ON-A01 … ON-A03): signing up and
in, every refusal as a sentence, the session as an HttpOnly cookie, the subscribers' gate."""

import os
import re
import secrets
import sqlite3
import tempfile

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import Served, home, shot


def fresh_name():
    return "Ana" + secrets.token_hex(4)


def open_form(page, form):
    page.click("[data-action=account]")
    page.wait_for_selector("[data-form]")
    if page.get_attribute("[data-form]", "data-form") != form:
        page.click("[data-action=switch-form]")
    page.wait_for_selector(f"[data-form={form}]")


def fill(page, **fields):
    for field, value in fields.items():
        page.fill(f"[data-form] input[name={field}]", value)


def submit_and_read_problem(page):
    page.click("[data-action=submit]")
    return page.inner_text("[data-problem]", timeout=15000)


def sign_up(page, name, password="cubo-gira-9"):
    open_form(page, "sign-up")
    fill(page, name=name, email=f"{name.lower()}@example.com", password=password)
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)


def subscribed_phone(browser, server, name, locale="pt-BR"):
    """A phone (360×640, touch) where `name` just signed up and got a subscription."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale)
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    sign_up(page, name)
    server.admin("subscription", "grant", name, "--until", "2099-01-01")
    page.goto(server.url)
    page.wait_for_selector(f"[data-action=account]:has-text('{name}')", timeout=15000)
    return page


def test_on_a01_sign_up_refusals_cookie_sign_out_and_in(phone):
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    assert phone.inner_text("[data-action=account]") == "Entrar"
    open_form(phone, "sign-up")
    # The device refuses what it can tell at once, without a request.
    assert submit_and_read_problem(phone) == "Escolha um nome de jogador."
    fill(phone, name="ab")
    assert submit_and_read_problem(phone) == "O nome precisa ter de 3 a 20 letras, números, _, - ou ."
    fill(phone, name=name, email="ana-at-example")
    assert submit_and_read_problem(phone) == "Esse e-mail não parece válido."
    fill(phone, email=email, password="curta")
    assert submit_and_read_problem(phone) == "A senha precisa ter pelo menos 8 caracteres."
    # The server's refusals, in Portuguese.
    fill(phone, password="12345678")
    assert submit_and_read_problem(phone) == "Essa senha está entre as mais usadas: escolha outra."
    fill(phone, password="cubo-gira-9")
    shot(phone, "account-sign-up")
    phone.click("[data-action=submit]")
    phone.wait_for_selector("[data-profile=name]", timeout=15000)
    assert phone.inner_text("[data-profile=name]") == name
    assert phone.inner_text("[data-profile=country]") == "Brasil", "from the browser's pt-BR (ON-A02)"
    assert phone.inner_text("[data-profile=subscription]") == "Sem assinatura"
    assert "para assinantes" in phone.inner_text(".online-gate"), "the gate explains (ON-A03)"
    shot(phone, "account-profile")

    # The session is a cookie page scripts cannot read, and it survives a reload.
    cookies = {c["name"]: c for c in phone.context.cookies()}
    session = cookies["__Host-velha-session"]
    assert (session["httpOnly"], session["secure"], session["sameSite"]) == (True, True, "Strict")
    assert "velha-session" not in phone.evaluate("document.cookie")
    phone.reload()
    phone.wait_for_selector(f"[data-profile=name]:has-text('{name}')", timeout=15000)
    home(phone)
    phone.wait_for_selector(f"[data-action=account]:has-text('{name}')", timeout=15000)

    # A second account with the same e-mail or name is refused with a sentence.
    phone.click("[data-action=account]")
    phone.click("[data-action=sign-out]")
    phone.wait_for_selector("[data-form=sign-in]")
    assert "__Host-velha-session" not in {c["name"] for c in phone.context.cookies()}
    phone.click("[data-action=switch-form]")
    fill(phone, name=fresh_name(), email=email.upper(), password="outra-senha-boa-7")
    assert submit_and_read_problem(phone) == "Já existe uma conta com esse e-mail. Entre com ela."
    fill(phone, name=name.upper(), email="outra-" + email)
    assert submit_and_read_problem(phone) == "Esse nome já é de outro jogador. Escolha outro."

    phone.click("[data-action=switch-form]")
    fill(phone, email=email, password="senha-errada-1")
    assert submit_and_read_problem(phone) == "E-mail ou senha errados."
    fill(phone, password="cubo-gira-9")
    phone.click("[data-action=submit]")
    phone.wait_for_selector("[data-profile=name]", timeout=15000)
    phone.click("[data-action=back]")
    assert phone.inner_text("[data-action=account]") == name


# Each text node of the e-mail on one line: it goes on to the next only after an @ or a dot.
EMAIL_LINES = """() => {
    const dd = document.querySelector("[data-profile=email]");
    const lines = new Set();
    for (const node of dd.childNodes) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size !== 1) return -1;
        lines.add([...tops][0]);
    }
    return lines.size;
}"""


def test_on_a02_the_profile_names_the_country_and_breaks_the_email_after_its_at(browser, server):
    for locale, country in (("pt-BR", "Brasil"), ("en-US", "United States")):
        context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True, locale=locale)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("[data-game=classic]", timeout=30000)
        name = fresh_name()
        sign_up(page, name)
        assert page.inner_text("[data-profile=country]") == country
        assert page.inner_text("[data-profile=email]") == f"{name.lower()}@example.com"
        # Too long for one line at 360 px: it wraps, after the @ and never mid-word.
        assert page.evaluate(EMAIL_LINES) == 2
        box = page.locator(".profile dl").bounding_box()
        assert box["x"] + box["width"] <= 360, "nothing runs off the phone"
        shot(page, f"account-profile-{locale}")
        context.close()


def test_on_a01_too_many_wrong_passwords_say_how_long_to_wait(phone):
    name = fresh_name()
    sign_up(phone, name)
    phone.click("[data-action=sign-out]")
    phone.wait_for_selector("[data-form=sign-in]")
    fill(phone, email=f"{name.lower()}@example.com", password="nao-e-essa-9")
    said = []
    for _ in range(30):
        said.append(submit_and_read_problem(phone))
        if said[-1].startswith("Muitas tentativas"):
            break
        phone.wait_for_function("document.querySelector('[data-action=submit]').disabled === false")
    assert said[0] == "E-mail ou senha errados."
    assert re.fullmatch(r"Muitas tentativas\. Tente de novo em (1 segundo|([2-9]|\d\d+) segundos|"
                        r"\d+ minutos)\.", said[-1]), said
    shot(phone, "account-rate-limited")


def test_a_request_shows_it_is_working_and_no_connection_is_a_sentence(phone):
    open_form(phone, "sign-in")
    fill(phone, email="ninguem@example.com", password="qualquer-coisa")
    held = []

    def hold(route):
        held.append(route)

    phone.route("**/api/sessions", hold)
    phone.click("[data-action=submit]")
    button = phone.locator("[data-action=submit]")
    assert button.is_disabled() and button.inner_text() == "Aguarde…"
    held[0].continue_()
    phone.unroute("**/api/sessions", hold)
    assert phone.inner_text("[data-problem]") == "E-mail ou senha errados."

    phone.context.set_offline(True)
    assert submit_and_read_problem(phone).startswith("Sem conexão com o servidor.")
    shot(phone, "account-offline")
    phone.context.set_offline(False)
    phone.click("[data-action=retry]")
    phone.wait_for_function(
        "document.querySelector('[data-problem]')?.innerText === 'E-mail ou senha errados.'")


def test_on_a03_a_subscriber_sees_until_when(phone, server):
    name = fresh_name()
    sign_up(phone, name)
    server.admin("subscription", "grant", name, "--until", "2099-01-01")
    # A reload keeps the screen: the profile, read again.
    phone.reload()
    phone.wait_for_selector("[data-profile=subscription]:has-text('2099')", timeout=15000)
    assert phone.inner_text("[data-profile=subscription]") == "Assinante até 01/01/2099"
    assert phone.get_attribute(".online-gate", "data-subscriber") == "true"
    assert "para assinantes" not in phone.inner_text(".online-gate")
    shot(phone, "account-subscriber")


def phone_in(browser, url, locale):
    """A phone (360×640, touch) whose browser speaks `locale` only, at the home screen."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    return page, errors


def test_on_a02_country_a_browser_saying_only_pt_signs_up_by_picking_brasil(browser, server):
    page, errors = phone_in(browser, server.url, "pt")
    assert page.evaluate("navigator.languages") == ["pt"], "a language, no country"
    name = fresh_name()
    open_form(page, "sign-up")
    fill(page, name=name, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    picker = "[data-field=country] [data-action=choose-country]"
    assert page.inner_text(picker) == "Escolha seu país", "nothing to propose"
    assert submit_and_read_problem(page) == "Escolha seu país na lista."
    shot(page, "country-sign-up-none")
    page.click(picker)
    options = page.locator(".country-list [role=option]")
    assert options.nth(0).inner_text() == "Brasil", "Brasil first"
    assert options.nth(1).inner_text() == "Afeganistão", "then the alphabet of the language"
    assert options.count() == 250
    shot(page, "country-sign-up-list")
    options.nth(0).click()
    assert page.inner_text(picker) == "Brasil"
    assert page.query_selector(".country-list") is None, "the list closes on a pick"
    shot(page, "country-sign-up-picked")
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=country]") == "Brasil"
    page.context.close()
    assert not errors, errors


def test_on_a01_a_half_filled_sign_up_form_survives_a_reload_and_the_back_button(browser, server):
    """What a guest typed comes back after a reload or back and forward, the country they
    picked too; never the password, which is kept nowhere."""
    page, errors = phone_in(browser, server.url, "pt")
    name = fresh_name()
    email = f"{name.lower()}@example.com"
    open_form(page, "sign-up")
    fill(page, name=name, email=email, password="cubo-gira-9")
    picker = "[data-field=country] [data-action=choose-country]"
    page.click(picker)
    page.click(".country-list [role=option]:text-is('Portugal')")

    def fields():
        return {f: page.input_value(f"[data-form] input[name={f}]")
                for f in ("name", "email", "password")}

    page.reload()
    page.wait_for_selector("[data-form=sign-up]", timeout=30000)
    assert fields() == {"name": name, "email": email, "password": ""}
    assert page.inner_text(picker) == "Portugal"
    kept = page.evaluate("JSON.stringify(sessionStorage) + JSON.stringify(localStorage)")
    assert email in kept and "cubo-gira-9" not in kept
    shot(page, "account-draft-after-reload")
    page.evaluate("history.back()")
    page.wait_for_selector("[data-game=classic]")
    page.evaluate("history.forward()")
    page.wait_for_selector("[data-form=sign-up]")
    assert fields()["email"] == email and page.inner_text(picker) == "Portugal"

    fill(page, password="cubo-gira-9")
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=country]") == "Portugal"
    # Once in, the draft is gone: signing out shows an empty form.
    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-form=sign-in]")
    assert page.input_value("[data-form] input[name=email]") == ""
    assert email not in page.evaluate("JSON.stringify(sessionStorage)")
    page.context.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def joe_won(server):
    """A server where Joe (an English browser: the United States) beat Bia (Brazil) once;
    (the server, Joe's e-mail)."""
    from test_ranking import DAY0, PASSWORD, post

    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    options = ["--tls-cert", cert, "--tls-key", key]
    with tempfile.TemporaryDirectory() as data:
        first = Served(data, options, postgres=False)
        first.cert = cert
        for name, region in (("Joe", "en-US"), ("Bia", "pt-BR")):
            post(first, "/api/accounts", {"email": f"{name.lower()}@example.com",
                                          "password": PASSWORD, "name": name, "region": region})
        first.stop()
        db = sqlite3.connect(os.path.join(data, "velha.db"))
        ids = dict(db.execute("SELECT name, id FROM accounts").fetchall())
        at = DAY0 + 3_600_000
        db.execute(
            "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, "
            "position, ply, winner, ending, created_at, started_at, ended_at) VALUES "
            "('m1', 'mundial', 1, ?, ?, 'US', 'BR', 'over', '', 9, 'X', 'line', ?, ?, ?)",
            (ids["Joe"], ids["Bia"], at - 9, at - 8, at))
        db.commit()
        db.close()
        again = Served(data, options, postgres=False)
        yield again, "joe@example.com"
        again.stop()


def national_ranking_shows(page, names):
    """From the profile, opens the national ranking at level 1, which must come to list
    exactly `names`, best first."""
    page.click("[data-action=ranking]")
    page.click("[data-scope=nacional]")
    rows = "[data-ranking=nacional-1] .ranking-row"
    try:
        page.wait_for_function(
            f"want => JSON.stringify([...document.querySelectorAll('{rows}')]"
            ".map(r => r.dataset.name)) === JSON.stringify(want)", arg=names, timeout=15000)
    except PlaywrightTimeout:
        shown = [r.get_attribute("data-name") for r in page.query_selector_all(rows)]
        assert shown == names


def test_on_a02_country_an_english_browser_changes_it_to_brasil_and_ranks_there(browser, joe_won):
    from test_ranking import PASSWORD

    served, email = joe_won
    page, errors = phone_in(browser, served.url, "en-US")
    page.click("[data-action=account]")
    fill(page, email=email, password=PASSWORD)
    page.click("[data-form=sign-in] [data-action=submit]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.inner_text("[data-profile=country]") == "United States"
    national_ranking_shows(page, ["Joe"])
    page.click("[data-action=back]")
    page.click("[data-action=account]")

    page.click(".country-change [data-action=choose-country]")
    assert page.inner_text(".country-change [data-action=choose-country]") == "Change country"
    options = page.locator(".country-list [role=option]")
    assert options.nth(0).inner_text() == "Brazil", "Brazil first, in English"
    assert page.get_attribute(".country-list [data-country=US]", "aria-selected") == "true"
    page.fill("input[name=country-search]", "ital")
    assert [options.nth(i).inner_text() for i in range(options.count())] == ["Italy"]
    page.fill("input[name=country-search]", "BRA")
    assert "Brazil" in [options.nth(i).inner_text() for i in range(options.count())]
    shot(page, "country-profile-list")
    page.click(".country-list [data-country=BR]")
    page.wait_for_selector("[data-profile=country]:has-text('Brazil')", timeout=15000)
    shot(page, "country-profile-changed")

    # The app starts again in a browser that still says en-US: the country picked stays.
    page.reload()
    page.wait_for_selector("[data-profile=country]", timeout=15000)
    assert page.inner_text("[data-profile=country]") == "Brazil"
    national_ranking_shows(page, ["Joe", "Bia"])
    row = page.query_selector(".ranking .ranking-row[data-name=Joe]")
    assert "BR" in row.inner_text() or "Brazil" in row.inner_text()
    shot(page, "country-ranking-national")
    page.context.close()
    assert not errors, errors


def guest_phone_without(browser, base_url, blocked):
    """A fresh phone that can never fetch the files matching `blocked` (the service worker off,
    so nothing comes from its cache): its context and page, on the home screen."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    context.route(blocked, lambda route: route.abort())
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    return context, page


def test_on_a01_the_account_module_that_could_not_be_fetched_is_tried_again(browser, base_url):
    context, page = guest_phone_without(browser, base_url, "**/split_account-*")
    page.click("[data-action=account]")
    # No signal for the account's module: the screen says so and offers to try again.
    page.wait_for_selector("[data-action=retry-screen]", timeout=30000)
    assert page.inner_text("[data-problem]") == "Esta tela não carregou. Verifique a conexão."
    shot(page, "account-not-fetched")
    context.unroute("**/split_account-*")
    page.click("[data-action=retry-screen]")
    page.wait_for_selector("[data-form=sign-in]", timeout=30000)
    context.close()


def test_on_a01_the_accounts_own_pages_open_without_the_online_module_and_lead_back_to_it(
        browser, base_url):
    # Password and devices, the player's data and the subscription are the settings' module's
    # (src/lazy.rs): they open though the module of rooms, rankings and the rest never comes.
    context, page = guest_phone_without(browser, base_url, "**/split_online-*")
    sign_up(page, fresh_name())
    page.click("[data-action=security]")
    page.wait_for_selector("ul.sessions li[data-this=true]", timeout=30000)
    # The screen's "Voltar" leads back to the account it was opened from, as the phone's does.
    page.click("[data-action=back]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    page.click("[data-action=my-data]")
    page.wait_for_selector("[data-action=export]", timeout=30000)
    page.click("[data-action=back]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    page.click("[data-action=my-data]")
    page.wait_for_selector("[data-action=export]", timeout=30000)
    page.go_back()
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    page.click(".online-gate [data-action=subscribe]")
    page.wait_for_selector("[data-subscription], [data-price], [data-problem]", timeout=30000)
    assert page.query_selector("[data-problem=screen-not-loaded]") is None
    context.close()


def test_on_a03_the_subscription_not_yet_here_leads_back_where_it_was_opened(browser, base_url):
    # "Voltar" on the subscription's screen still loading goes back to the account whose
    # "Assinar" opened it; online play's gate later sends the player on, and back goes home.
    context, page = guest_phone_without(browser, base_url, "**/split_settings-*")
    sign_up(page, fresh_name())
    page.click(".online-gate [data-action=subscribe]")
    page.wait_for_selector("[data-action=retry-screen]", timeout=30000)
    page.click("nav.top [data-action=back]")
    page.wait_for_selector("[data-profile=name]", timeout=15000)
    assert page.evaluate("location.pathname") == "/conta"
    context.unroute("**/split_settings-*")
    page.click("nav.top [data-action=back]")
    page.click("[data-game=cube]")
    page.click("[data-mode=online]")
    # This server sells no subscription: the screen says so.
    page.wait_for_selector("[data-problem=not-on-sale]", timeout=30000)
    page.click("nav.top [data-action=back]")
    page.wait_for_selector("[data-game=classic]", timeout=15000)
    assert page.evaluate("location.pathname") == "/"
    context.close()


def test_on_a03_online_play_asks_a_guest_to_sign_in_without_the_online_module(browser, base_url):
    # The gate is the app's and the account the account's module's: a guest gets to the
    # sign-in form though the module of the other online screens never comes.
    context, page = guest_phone_without(browser, base_url, "**/split_online-*")
    page.click("[data-game=cube]")
    page.click("[data-mode=online]")
    page.wait_for_selector("[data-action=sign-in]", timeout=30000)
    assert "Entre na sua conta para jogar online." in page.inner_text("main")
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-form=sign-in]", timeout=30000)
    context.close()
