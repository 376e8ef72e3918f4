"""Your data (docs/accounts.md, ON-A04, ON-A05) at phone size, under the app's real
Content-Security-Policy: a player downloads everything the server holds about them, and
deletes the account — asked twice, the password confirming — after which the room she made
shows her to the other player as "Jogador removido"."""

import json
import re

from conftest import shot
from test_account import fill, fresh_name, sign_up
from test_rooms import join, new_room
from test_subscription import new_phone


def open_my_data(page):
    """From the profile, opens "Seus dados"."""
    page.click("[data-action=my-data]")
    page.wait_for_url("**/conta/dados")
    page.wait_for_selector("[data-action=export]", timeout=15000)


def download(page):
    """Taps "Baixar meus dados": the file saved, and what the screen then says."""
    with page.expect_download(timeout=15000) as saving:
        page.click("[data-action=export]")
    file = saving.value
    said = page.wait_for_selector("[data-said=saved]", timeout=15000).inner_text()
    return file, said


def test_on_a05_a_player_downloads_everything_the_server_holds_about_them(browser, server):
    phone, errors = new_phone(browser, server)
    name = fresh_name()
    sign_up(phone, name)
    shot(phone, "profile-my-data")
    open_my_data(phone)
    shot(phone, "my-data")
    file, said = download(phone)
    assert re.fullmatch(r"cubo-da-velha-\d{4}-\d{2}-\d{2}\.json", file.suggested_filename)
    assert said == f"Arquivo salvo: {file.suggested_filename}"
    shot(phone, "my-data-saved")
    with open(file.path(), encoding="utf-8") as f:
        data = json.load(f)
    account = data["sections"]["account"][0]
    assert (account["name"], account["email"]) == (name, f"{name.lower()}@example.com")
    assert len(data["sections"]["sessions"]) == 1
    assert "password_hash" not in json.dumps(data)

    # A reload keeps the screen; the third download of the hour is the last.
    phone.reload()
    phone.wait_for_selector("[data-action=export]", timeout=30000)
    for _ in range(2):
        download(phone)
    phone.click("[data-action=export]")
    problem = phone.wait_for_selector("[data-said=problem]", timeout=15000).inner_text()
    assert re.fullmatch(r"Você já baixou seus dados 3 vezes na última hora\. Baixe de novo em "
                        r"\d+ minutos\.", problem), problem
    shot(phone, "my-data-limit")
    phone.go_back()
    phone.wait_for_selector("[data-profile=name]", timeout=15000)
    assert not errors, errors
    phone.context.close()


def test_on_a04_a_player_deletes_the_account_asked_twice_and_her_room_shows_her_removed(
        browser, server):
    ana, errors = new_phone(browser, server)
    name = fresh_name()
    sign_up(ana, name)
    _, path = new_room(browser, server, "quelonia", page=ana, name="Ana Maria")
    bia = join(browser, server, path, "nino", "Bia")
    assert "Ana Maria" in bia.inner_text("[data-player=X]")

    ana.goto(server.url)
    ana.wait_for_selector("[data-game=classic]", timeout=30000)
    ana.click("[data-action=account]")
    ana.wait_for_selector("[data-profile=name]", timeout=15000)
    open_my_data(ana)
    # Asked once: what deleting does, and the password.
    ana.click("[data-action=delete-account]")
    ana.wait_for_selector("[data-form=delete-account]")
    consequences = ana.inner_text("ul.consequences")
    assert "abandono" in consequences and "Jogador removido" in consequences, consequences
    shot(ana, "my-data-delete-asked")
    # Cancel keeps everything.
    ana.click("[data-action=keep-account]")
    ana.wait_for_selector("[data-form=delete-account]", state="detached")
    ana.click("[data-action=delete-account]")
    fill(ana, password="not-her-password")
    ana.click("[data-action=delete-forever]")
    said = ana.wait_for_selector("[data-form=delete-account] [data-said=problem]", timeout=15000)
    assert said.inner_text() == "A senha não é esta."
    shot(ana, "my-data-delete-wrong-password")
    # Asked twice: the right password deletes it.
    fill(ana, password="cubo-gira-9")
    ana.click("[data-action=delete-forever]")
    said = ana.wait_for_selector("[data-said=deleted]", timeout=15000)
    assert said.inner_text() == "Sua conta foi excluída. Obrigado por ter jogado!"
    shot(ana, "my-data-deleted")
    ana.click("[data-action=home]")
    ana.wait_for_selector("[data-game=classic]", timeout=15000)

    # Signed out, and nothing of the account signs in again.
    ana.click("[data-action=account]")
    ana.wait_for_selector("[data-form=sign-in], [data-form=sign-up]", timeout=15000)
    if ana.get_attribute("[data-form]", "data-form") != "sign-in":
        ana.click("[data-action=switch-form]")
    fill(ana, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    ana.click("[data-action=submit]")
    assert ana.inner_text("[data-problem]", timeout=15000) == "E-mail ou senha errados."

    # The room goes on for Bia, with the name Ana wrote gone from it.
    bia.reload()
    bia.wait_for_function(
        "document.querySelector('[data-player=X]')?.innerText.includes('Jogador removido')",
        timeout=15000)
    assert "Ana Maria" not in bia.inner_text("body")
    shot(bia, "room-creator-removed")
    assert not errors, errors
    for page in (ana, bia):
        page.context.close()
