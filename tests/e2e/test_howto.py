"""How to play in the device's language: Portuguese rules for pt-BR, English ones for English,
each marked with its own `lang`, in a phone browser."""

import re

from conftest import home, shot

# Each game's first heading and a sentence of its rules, in each language. The English names
# are the ones the home screen shows.
RULES = {
    "pt-BR": {
        "cube": ("Como jogar", "Tudo o que você precisa saber"),
        "classic": ("O objetivo", "Dicas para quem está começando"),
        "super": ("Regras do Super Jogo da Velha", "mini-tabuleiro"),
        "v2": ("Entenda o Jogo da Velha 2.0", "Tempo por rodada"),
    },
    "en-US": {
        "cube": ("How to play", "Everything you need to know"),
        "classic": ("The goal", "Tips for beginners"),
        "super": ("Rules of Super Tic-tac-toe", "mini-board"),
        "v2": ("Getting to know Tic-tac-toe 2.0", "Time per turn"),
    },
}


def open_rules(browser, base_url, locale):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    return page, errors


def test_the_rules_are_in_the_devices_language(browser, base_url):
    for locale, games in RULES.items():
        page, errors = open_rules(browser, base_url, locale)
        for game, (heading, sentence) in games.items():
            home(page)
            name = page.inner_text(f"li.game-card:has([data-howto={game}]) h2")
            page.click(f"[data-howto={game}]")
            page.wait_for_selector("article.howto h2", timeout=30000)
            article = page.locator("article.howto")
            assert article.get_attribute("lang") == ("en" if locale == "en-US" else "pt-BR")
            text = article.inner_text()
            assert page.inner_text("article.howto h2 >> nth=0") == heading, (locale, game)
            assert sentence in text, (locale, game)
            # No note that the rules are in another language.
            assert page.locator("article.howto .note").count() == 0, (locale, game)
            assert page.inner_text("nav.top h1") == name, (locale, game)
            if locale == "en-US":
                # The games' English names, never their Portuguese ones.
                assert "Jogo da Velha" not in text, game
                assert not re.search(r"\b(você|não|jogador|tabuleiro)\b", text), game
            page.evaluate("window.scrollTo(0, 0)")
            shot(page, f"howto-{game}-{locale}", full=False)
        page.context.close()
        assert not errors, errors


def test_a_heading_that_ends_in_a_bracket_is_a_heading(browser, base_url):
    for locale, headings in {"pt-BR": ("Marcar casas (só no lado 1)", "Mini ranking (ranking de grupo)"),
                             "en-US": ("Marking cells (side 1 only)", "Mini ranking (group ranking)")}.items():
        page, errors = open_rules(browser, base_url, locale)
        page.click("[data-howto=cube]")
        page.wait_for_selector("article.howto h2", timeout=30000)
        shown = page.locator("article.howto h2").all_inner_texts()
        for heading in headings:
            assert heading in shown, (locale, shown)
        page.context.close()
        assert not errors, errors


def test_classic_r14_help_in_english_shows_the_tips_and_the_variations(browser, base_url):
    page, errors = open_rules(browser, base_url, "en-US")
    page.click("[data-howto=classic]")
    page.wait_for_selector("article.howto h2", timeout=30000)
    text = page.inner_text("article.howto")
    assert "Tips for beginners" in text
    assert "Variations of tic-tac-toe" in text
    assert "in Cubo da Velha, the starter simply changes every game" in text
    page.context.close()
    assert not errors, errors


def test_the_english_cube_rules_say_rotation_for_a_layer_and_turn_for_a_player(browser, base_url):
    page, errors = open_rules(browser, base_url, "en-US")
    page.click("[data-howto=cube]")
    page.wait_for_selector("article.howto h2", timeout=30000)
    text = page.inner_text("article.howto")
    headings = page.locator("article.howto h2").all_inner_texts()
    assert "Rotations" in headings and "Winning by rotation" in headings
    # The pill's words, as the cube shows them at level 2.
    assert "Rotation: either way" in text and "Rotation: one way" in text
    # "turn" only ever a player's.
    for said in re.findall(r"[^.:]*\bturns?\b[^.:]*", text):
        assert re.search(r"\b(your turn|per turn|take turns|whose turn)\b", said), said
    shot(page, "howto-cube-en-US-rotations")
    page.context.close()
    assert not errors, errors


def test_v2_r05_v2_r08_the_rules_say_what_a_run_out_turn_costs_and_who_plays_x(browser, base_url):
    """The seed left the penalty open ("lose the turn, or another penalty"); the rules page says
    what the game does: the turn is lost, three in a row lose the game, and in a series the
    players swap symbols so that whoever starts plays X."""
    said = {
        "pt-BR": ("o jogador perde a vez", "3 vezes seguidas por tempo perde a partida",
                  "quem começa joga com o X", "outra penalidade"),
        "en-US": ("the player loses the turn", "3 times in a row this way loses the game",
                  "whoever starts plays X", "another penalty"),
    }
    for locale, (lost, three, swap, undecided) in said.items():
        page, errors = open_rules(browser, base_url, locale)
        page.click("[data-howto=v2]")
        page.wait_for_selector("article.howto h2", timeout=30000)
        text = page.inner_text("article.howto")
        assert lost in text and three in text and swap in text, locale
        assert undecided not in text, locale
        page.context.close()
        assert not errors, errors
