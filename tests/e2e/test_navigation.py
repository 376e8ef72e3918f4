"""The phone's back button and a reload, as a player meets them: every screen has its own address,
back goes to the previous screen inside the app, a reload (or a link) opens the same screen, and
in a live match back asks first and a reload goes straight back to the match (ON-M04)."""

from conftest import shot
from test_account import fill, fresh_name, subscribed_phone
from test_online import meet, started_again


def path(page):
    return page.evaluate("location.pathname")


def back(page):
    page.evaluate("history.back()")


def test_back_goes_to_the_previous_screen_and_a_reload_keeps_the_screen(phone):
    assert path(phone) == "/"
    phone.click("[data-game=cube]")
    phone.wait_for_selector("[data-mode]")
    assert path(phone) == "/cubo"
    back(phone)
    phone.wait_for_selector("[data-game=classic]")
    assert path(phone) == "/"
    phone.evaluate("history.forward()")
    phone.wait_for_selector("[data-mode]")
    assert path(phone) == "/cubo"
    back(phone)
    phone.click("[data-howto=super]")
    phone.wait_for_selector("nav.top h1")
    assert path(phone) == "/super-jogo-da-velha/como-jogar"
    how_to = phone.inner_text("nav.top h1")
    phone.reload()
    phone.wait_for_selector("nav.top h1")
    assert phone.inner_text("nav.top h1") == how_to, "a reload opens the same screen"
    # The app's own back button is a new place too: the browser's back returns to the rules.
    phone.click("[data-action=back]")
    phone.wait_for_selector("[data-game=classic]")
    back(phone)
    phone.wait_for_selector("nav.top h1")
    assert path(phone) == "/super-jogo-da-velha/como-jogar"
    # An address the app does not know opens home.
    phone.goto(phone.evaluate("location.origin") + "/nada/aqui")
    phone.wait_for_selector("[data-game=classic]")
    assert path(phone) == "/"


def test_a_link_to_a_screen_opens_it(browser, server):
    page = subscribed_phone(browser, server, fresh_name())
    for address, mark in [("/ranking", "[data-ranking]"),
                          ("/grupos", "[data-action=create-group], #group-name"),
                          ("/cubo/online", "[data-action=create-match]")]:
        page.goto(server.url.rstrip("/") + address)
        page.wait_for_selector(mark, timeout=15000)
        assert path(page) == address
    page.context.close()


def test_on_m04_back_in_a_live_match_asks_first_like_the_leave_button(browser, server):
    ana, bia = meet(browser, server)
    assert path(bia) == "/cubo/online"
    back(bia)
    bia.wait_for_selector("[role=alertdialog]", timeout=5000)
    assert bia.inner_text("[role=alertdialog] p") == "Sair é derrota por abandono. Sair mesmo?"
    assert path(bia) == "/cubo/online", "still in the match"
    shot(bia, "back-in-a-live-match")
    bia.click("[role=alertdialog] button:not([data-action])")
    bia.wait_for_selector("[role=alertdialog]", state="detached")
    # Still playing: Ana's move reaches her.
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    back(bia)
    bia.click("[data-action=confirm-leave]")
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    # Once the match is over, back leaves the screen.
    back(bia)
    bia.wait_for_selector("[data-action=create-match], [data-profile]", timeout=15000)
    for page in (ana, bia):
        page.context.close()


def test_on_m04_a_reload_mid_match_goes_straight_back_to_it(browser, server):
    ana, bia = meet(browser, server)
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    # A killed tab opened again at home: the app finds the match by itself.
    bia.goto(server.url)
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert path(bia) == "/cubo/online"
    bia.click("[data-action=buttons]")
    assert bia.get_attribute("[data-cell=a1]", "aria-label") == "a1, X", "the same match, the same ply"
    bia.click("[data-cell=c3]:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.get_attribute("[data-cell=c3]", "aria-label") == "c3, O"
    # A reload on the match's own address keeps it too.
    ana.reload()
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    shot(ana, "reload-mid-match")
    for page in (ana, bia):
        page.context.close()


def test_on_m04_back_while_a_resumed_match_loads_asks_once_it_shows(browser, server):
    # The match's screens are a module of their own (src/lazy.rs): a phone that starts again
    # mid-match may show the match before they come, and back must not leave it meanwhile.
    ana, bia = meet(browser, server)
    context = started_again(browser, bia)
    held = []
    context.route("**/split_live_match-*", lambda route: held.append(route))
    bia = context.new_page()
    bia.goto(server.url)
    bia.wait_for_selector("[data-loading=screen]", timeout=15000)
    assert path(bia) == "/cubo/online", "the app found the match"
    assert held, "the app asked for the match's module"
    back(bia)
    bia.wait_for_timeout(500)
    assert path(bia) == "/cubo/online", "back is held while the match loads"
    shot(bia, "resumed-match-loading")
    for route in held:
        route.continue_()
    bia.wait_for_selector("[role=alertdialog]", timeout=15000)
    assert bia.inner_text("[role=alertdialog] p") == "Sair é derrota por abandono. Sair mesmo?"
    bia.click("[role=alertdialog] button:not([data-action])")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    for page in (ana, bia):
        page.context.close()


def test_on_a03_the_cube_screen_leads_online_through_sign_in_and_back(phone, server):
    phone.click("[data-game=cube]")
    phone.click("[data-mode=online]")
    assert path(phone) == "/cubo/online"
    phone.click("[data-action=sign-in]")
    name = fresh_name()
    phone.wait_for_selector("[data-form]")
    if phone.get_attribute("[data-form]", "data-form") != "sign-up":
        phone.click("[data-action=switch-form]")
    fill(phone, name=name, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    phone.click("[data-action=submit]")
    # Signed in, online play sends a non-subscriber on to the subscription, in its place in
    # the history; this server sells none, and says so.
    phone.wait_for_selector("[data-problem=not-on-sale]", timeout=15000)
    assert path(phone) == "/assinatura"
    assert phone.inner_text("[data-problem=not-on-sale]") == \
        "A assinatura não está à venda agora. Tente de novo mais tarde."
    assert phone.query_selector("[data-action=checkout]") is None
    server.admin("subscription", "grant", name, "--until", "2099-01-01")
    phone.reload()
    phone.wait_for_selector("[data-subscription=true]", timeout=15000)
    assert phone.inner_text("[data-subscription]") == "Assinante até 01/01/2099"
    phone.click("[data-action=play-online]")
    phone.wait_for_selector("[data-action=create-match]", timeout=15000)
    assert path(phone) == "/cubo/online"


def test_on_m01_the_lobby_remembers_its_scope_and_level_after_a_match(browser, server):
    ana, bia = meet(browser, server, scope="nacional", level="2")
    bia.click("[data-action=leave]")
    bia.click("[data-action=confirm-leave]")
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.click("[data-action=back]")
    bia.wait_for_selector("[data-game=cube]")
    bia.click("[data-game=cube]")
    bia.click("[data-mode=online]")
    bia.wait_for_selector("[data-action=create-match]", timeout=15000)
    assert "selected" in bia.get_attribute("[data-scope=nacional]", "class")
    assert "selected" in bia.get_attribute("[data-level='2']", "class")
    for page in (ana, bia):
        page.context.close()
