"""Accounts in the browser against the real server (online.md ON-A01 … ON-A03): signing up and
in, every refusal as a sentence, the session as an HttpOnly cookie, the subscribers' gate."""

import secrets

from conftest import home, shot


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
    assert phone.inner_text("[data-profile=country]") == "BR", "from the browser's pt-BR (ON-A02)"
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
    assert said[-1].startswith("Muitas tentativas. Tente de novo em "), said
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
