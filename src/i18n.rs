//! Every text a player reads, in Brazilian Portuguese (first) and English, one place per
//! language.

use velha_rules::Player;

use crate::analysis::texts::{ANALYSIS_EN, ANALYSIS_PT, AnalysisTexts};
use crate::online::competitive_texts::{COMPETITIVE_EN, COMPETITIVE_PT, CompetitiveTexts};
use crate::online::group_texts::{GROUPS_EN, GROUPS_PT, GroupTexts};
use crate::online::replay_texts::{REPLAYS_EN, REPLAYS_PT, ReplayTexts};
use crate::online::room_texts::{ROOMS_EN, ROOMS_PT, RoomTexts};
use crate::online::subscription_texts::{SUBSCRIPTION_EN, SUBSCRIPTION_PT, SubscriptionTexts};
use crate::online::texts::{ONLINE_EN, ONLINE_PT, OnlineTexts};

/// All the app's texts in one language. Field names say where each text goes.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct Texts {
    /// The `lang` attribute.
    pub lang: &'static str,
    /// Brazilian Portuguese: picks the online screens' texts (`Texts::online` and the rest).
    pub pt: bool,
    /// The replay of a finished game (also the review of a local one).
    pub replays: &'static ReplayTexts,
    /// The post-game analysis (ANA-01).
    pub analysis: &'static AnalysisTexts,
    /// What the local screens say of online play and rooms, and what the module loader says.
    pub try_again: &'static str,
    pub play_online: &'static str,
    pub online_what: &'static str,
    pub play_rated: &'static str,
    pub play_with_someone: &'static str,
    /// Online play's gate, on the app's module so a guest and a kept session meet it at once.
    pub online_play: &'static str,
    pub sign_in: &'static str,
    pub sign_in_first: &'static str,
    pub checking: &'static str,
    /// On the home screen: sign in, or open the account.
    pub account: &'static str,
    pub back: &'static str,
    pub play: &'static str,
    pub how_to: &'static str,
    pub game_cube: &'static str,
    pub game_classic: &'static str,
    pub game_super: &'static str,
    pub game_v2: &'static str,
    pub tagline_cube: &'static str,
    pub tagline_classic: &'static str,
    pub tagline_super: &'static str,
    pub tagline_v2: &'static str,
    pub score_title: &'static str,
    pub reset_score: &'static str,
    pub confirm_reset: &'static str,
    pub yes: &'static str,
    pub no: &'static str,
    pub empty: &'static str,
    pub turn_of: &'static str,
    pub wins_game: &'static str,
    pub draw: &'static str,
    pub you_won: &'static str,
    pub you_lost: &'static str,
    pub choose_opponent: &'static str,
    pub rabisco: &'static str,
    pub nino: &'static str,
    pub quelonia: &'static str,
    /// One line on each character (from the seed), then what each says at the end of a game:
    /// after the person won, after a draw, after the character won.
    pub rabisco_about: &'static str,
    pub nino_about: &'static str,
    pub quelonia_about: &'static str,
    pub rabisco_says: [&'static str; 3],
    pub nino_says: [&'static str; 3],
    pub quelonia_says: [&'static str; 3],
    pub two_players: &'static str,
    /// Beside the symbols of a 2.0 game on one device, which swap every game (V2-R08).
    pub you: &'static str,
    pub computer: &'static str,
    pub player_one: &'static str,
    pub player_two: &'static str,
    pub another_game: &'static str,
    pub stop: &'static str,
    /// PARAR's question in the middle of a game.
    pub confirm_stop: &'static str,
    pub series_score: &'static str,
    /// A series' counts: `1 vitória`, `2 velhas`, `0 derrotas`.
    pub wins: fn(u32) -> String,
    pub draws: fn(u32) -> String,
    pub losses: fn(u32) -> String,
    pub you_are_x: &'static str,
    pub easy: &'static str,
    pub medium: &'static str,
    pub hard: &'static str,
    pub board_sent: &'static str,
    /// Along the bottom of the cube's flat drawing while its painter loads, and above the cube
    /// when the painter could not be fetched or the browser cannot draw in 3D (the web only:
    /// there the painter is a module of its own).
    #[cfg(target_arch = "wasm32")]
    pub cube_loading: &'static str,
    #[cfg(target_arch = "wasm32")]
    pub cube_not_loaded: &'static str,
    #[cfg(target_arch = "wasm32")]
    pub cube_no_webgl: &'static str,
    #[cfg(target_arch = "wasm32")]
    pub cube_lost: &'static str,
    /// While the online screens' module loads (the web only: a module of its own there), and
    /// when it could not be fetched.
    #[cfg(target_arch = "wasm32")]
    pub screen_loading: &'static str,
    #[cfg(target_arch = "wasm32")]
    pub screen_not_loaded: &'static str,
    pub any_board: &'static str,
    pub points: &'static str,
    pub seconds_left: &'static str,
    pub lost_turn: &'static str,
    pub coin_toss: &'static str,
    /// `O começa`: the coin's answer, and the buttons that agree on a starter.
    pub starts: fn(Player) -> String,
    pub board_word: &'static str,
    pub won_by: &'static str,
    pub drawn_board: &'static str,
    pub level_1: &'static str,
    pub level_2: &'static str,
    pub against_velha: &'static str,
    pub next_turn_free: &'static str,
    pub next_turn_one_way: &'static str,
    pub symbols_on_side1: &'static str,
    pub turns_title: &'static str,
    pub play_with_buttons: &'static str,
    pub cells_title: &'static str,
    pub wrong_direction: &'static str,
    /// The wrong-way warning by the layer's axis (columns, rows, the layers parallel to side 1),
    /// before the arrow of the one way it turns (`cube_table::only_way`).
    pub only_way: [&'static str; 3],
    /// Brings the orbited cube back to its starting view (level 2).
    pub front_view: &'static str,
    pub symbol_limit: &'static str,
    pub opponent_symbol: &'static str,
    pub second_free_turn: &'static str,
    pub game_over: &'static str,
    pub column: &'static str,
    pub row: &'static str,
    pub front: &'static str,
    pub middle: &'static str,
    pub back_layer: &'static str,
}

/// Brazilian Portuguese, the app's first language (wording from the seeds).
pub static PT: Texts = Texts {
    lang: "pt-BR",
    pt: true,
    replays: &REPLAYS_PT,
    analysis: &ANALYSIS_PT,
    try_again: "Tentar de novo",
    play_online: "Jogar online",
    online_play: "Jogo online",
    sign_in: "Entrar",
    sign_in_first: "Entre na sua conta para jogar online.",
    checking: "Verificando sua conta…",
    online_what: "Contra outras pessoas, no ranking mundial ou nacional: para assinantes.",
    play_rated: "JOGAR VALENDO RATING",
    play_with_someone: "JOGAR COM ALGUÉM",
    account: "Entrar",
    back: "Voltar",
    play: "Jogar",
    how_to: "Como jogar",
    game_cube: "Cubo da Velha",
    game_classic: "Jogo da Velha",
    game_super: "Super Jogo da Velha",
    game_v2: "Jogo da Velha 2.0",
    tagline_cube: "Jogo da velha no lado 1 de um cubo que gira.",
    tagline_classic: "O clássico, contra a turma da Vila Quintal.",
    tagline_super: "Nove tabuleiros: cada jogada manda o outro para um deles.",
    tagline_v2: "Empate também pontua, e cada vez tem 1 minuto.",
    score_title: "Você × Velha",
    reset_score: "Zerar placar",
    confirm_reset: "Zerar o placar contra a Velha?",
    yes: "Sim",
    no: "Não",
    empty: "vazio",
    turn_of: "Vez do",
    wins_game: "venceu!",
    draw: "Deu velha!",
    you_won: "Você venceu!",
    you_lost: "Você perdeu.",
    choose_opponent: "Escolha o adversário",
    rabisco: "Rabisco (fácil)",
    nino: "Nino (médio)",
    quelonia: "Vó Quelônia (difícil)",
    rabisco_about: "Brinca mais do que joga: fecha a linha dele só de vez em quando e não tampa a sua.",
    nino_about: "Quase sempre fecha a linha dele e tampa a sua, mas não enxerga a jogada dupla.",
    quelonia_about: "Joga perfeito e nunca perde: o melhor resultado possível contra ela é a velha.",
    rabisco_says: [
        "Ih, perdi! Bora de novo?",
        "Deu velha! Foi quase, né?",
        "Oba, fechei a linha! Nem eu acreditei.",
    ],
    nino_says: [
        "Jogada dupla?! Essa eu não vi.",
        "Deu velha. Tampei tudo!",
        "Fechei! Fica de olho na minha linha.",
    ],
    quelonia_says: [
        "Ora, ora… você me pegou, meu bem.",
        "Deu velha, meu bem. Contra mim, isso já é vitória.",
        "Paciência, meu bem: atacar vem antes de tampar.",
    ],
    two_players: "Dois jogadores",
    you: "Você",
    computer: "Computador",
    player_one: "Jogador 1",
    player_two: "Jogador 2",
    another_game: "OUTRA PARTIDA",
    stop: "PARAR",
    confirm_stop: "Parar agora? Esta partida termina sem resultado.",
    series_score: "Placar",
    wins: |n| counted(n, "vitória", "vitórias"),
    draws: |n| counted(n, "velha", "velhas"),
    losses: |n| counted(n, "derrota", "derrotas"),
    you_are_x: "Você joga com o X.",
    easy: "Fácil",
    medium: "Médio",
    hard: "Difícil",
    board_sent: "Jogue no tabuleiro",
    #[cfg(target_arch = "wasm32")]
    cube_loading: "Preparando o cubo em 3D…",
    #[cfg(target_arch = "wasm32")]
    cube_not_loaded: "O cubo em 3D não carregou. Ele vai aparecer assim que a conexão voltar.",
    #[cfg(target_arch = "wasm32")]
    cube_no_webgl: "Este navegador não desenha o cubo em 3D (WebGL2).",
    #[cfg(target_arch = "wasm32")]
    cube_lost: "O navegador pausou o cubo em 3D. Se ele não voltar sozinho, abra o cubo de novo.",
    #[cfg(target_arch = "wasm32")]
    screen_loading: "Carregando…",
    #[cfg(target_arch = "wasm32")]
    screen_not_loaded: "Esta tela não carregou. Verifique a conexão.",
    any_board: "Jogue em qualquer tabuleiro livre",
    points: "Pontos",
    seconds_left: "s",
    lost_turn: "perdeu a vez",
    coin_toss: "Cara ou coroa",
    starts: |p| format!("{p} começa"),
    board_word: "tabuleiro",
    won_by: "ganho por",
    drawn_board: "empatado",
    level_1: "Nível 1",
    level_2: "Nível 2",
    against_velha: "Contra a Velha",
    next_turn_free: "Giro: livre",
    next_turn_one_way: "Giro: sentido único",
    symbols_on_side1: "símbolos no lado 1",
    turns_title: "Giros",
    play_with_buttons: "Jogar com botões",
    cells_title: "Lado 1",
    wrong_direction: "Esse giro não vai nesse sentido agora.",
    only_way: [
        "Nas colunas, só para baixo",
        "Nas fileiras, só para a esquerda",
        "Frente, meio e trás, só no sentido horário",
    ],
    front_view: "Ver de frente",
    symbol_limit: "Limite de 4 símbolos no lado 1.",
    opponent_symbol: "Não é permitido apagar o símbolo do adversário.",
    second_free_turn: "Só um giro livre por vez.",
    game_over: "A partida acabou.",
    column: "Coluna",
    row: "Fileira",
    front: "Frente",
    middle: "Meio",
    back_layer: "Trás",
};

/// English, for devices set to it.
pub static EN: Texts = Texts {
    lang: "en",
    pt: false,
    replays: &REPLAYS_EN,
    analysis: &ANALYSIS_EN,
    try_again: "Try again",
    play_online: "Play online",
    online_play: "Online play",
    sign_in: "Sign in",
    sign_in_first: "Sign in to play online.",
    checking: "Checking your account…",
    online_what: "Against other people, in the world or national ranking: for subscribers.",
    play_rated: "PLAY RATED",
    play_with_someone: "PLAY WITH SOMEONE",
    account: "Sign in",
    back: "Back",
    play: "Play",
    how_to: "How to play",
    game_cube: "Cubo da Velha",
    game_classic: "Tic-tac-toe",
    game_super: "Super Tic-tac-toe",
    game_v2: "Tic-tac-toe 2.0",
    tagline_cube: "Tic-tac-toe on side 1 of a rotating cube.",
    tagline_classic: "The classic, against the Vila Quintal gang.",
    tagline_super: "Nine boards: each move sends the other player to one of them.",
    tagline_v2: "Draws score too, and every turn has 1 minute.",
    score_title: "You × Velha",
    reset_score: "Reset score",
    confirm_reset: "Reset the score against the Velha?",
    yes: "Yes",
    no: "No",
    empty: "empty",
    turn_of: "Turn:",
    wins_game: "wins!",
    draw: "It's a draw!",
    you_won: "You won!",
    you_lost: "You lost.",
    choose_opponent: "Choose your opponent",
    rabisco: "Rabisco (easy)",
    nino: "Nino (medium)",
    quelonia: "Grandma Quelônia (hard)",
    rabisco_about: "Plays more than he thinks: closes his own line only now and then, and never blocks yours.",
    nino_about: "Almost always closes his line and blocks yours, but can't see the double threat.",
    quelonia_about: "Plays perfectly and never loses: the best you can get against her is a draw.",
    rabisco_says: [
        "Oops, I lost! Again?",
        "A draw! That was close, huh?",
        "Yay, I closed a line! Even I can't believe it.",
    ],
    nino_says: [
        "A double threat?! Didn't see that one.",
        "A draw. I blocked everything!",
        "Got it! Keep an eye on my line.",
    ],
    quelonia_says: [
        "Well, well… you got me, dear.",
        "A draw, dear. Against me, that's already a win.",
        "Patience, dear: attack comes before blocking.",
    ],
    two_players: "Two players",
    you: "You",
    computer: "Computer",
    player_one: "Player 1",
    player_two: "Player 2",
    another_game: "ANOTHER GAME",
    stop: "STOP",
    confirm_stop: "Stop now? This game ends with no result.",
    series_score: "Score",
    wins: |n| counted(n, "win", "wins"),
    draws: |n| counted(n, "draw", "draws"),
    losses: |n| counted(n, "loss", "losses"),
    you_are_x: "You play X.",
    easy: "Easy",
    medium: "Medium",
    hard: "Hard",
    board_sent: "Play in board",
    #[cfg(target_arch = "wasm32")]
    cube_loading: "Getting the 3D cube ready…",
    #[cfg(target_arch = "wasm32")]
    cube_not_loaded: "The 3D cube did not load. It will appear as soon as the connection is back.",
    #[cfg(target_arch = "wasm32")]
    cube_no_webgl: "This browser cannot draw the cube in 3D (WebGL2).",
    #[cfg(target_arch = "wasm32")]
    cube_lost: "The browser paused the 3D cube. If it does not come back, open the cube again.",
    #[cfg(target_arch = "wasm32")]
    screen_loading: "Loading…",
    #[cfg(target_arch = "wasm32")]
    screen_not_loaded: "This screen did not load. Check the connection.",
    any_board: "Play in any open board",
    points: "Points",
    seconds_left: "s",
    lost_turn: "lost the turn",
    coin_toss: "Coin toss",
    starts: |p| format!("{p} starts"),
    board_word: "board",
    won_by: "won by",
    drawn_board: "drawn",
    level_1: "Level 1",
    level_2: "Level 2",
    against_velha: "Against the Velha",
    next_turn_free: "Rotation: either way",
    next_turn_one_way: "Rotation: one way",
    symbols_on_side1: "symbols on side 1",
    turns_title: "Rotations",
    play_with_buttons: "Play with buttons",
    cells_title: "Side 1",
    wrong_direction: "That layer can't rotate that way now.",
    only_way: [
        "Columns rotate only down",
        "Rows rotate only left",
        "Front, middle and back rotate only clockwise",
    ],
    front_view: "Front view",
    symbol_limit: "At most 4 symbols on side 1.",
    opponent_symbol: "You can't erase your opponent's symbol.",
    second_free_turn: "Only one free rotation per turn.",
    game_over: "The game is over.",
    column: "Column",
    row: "Row",
    front: "Front",
    middle: "Middle",
    back_layer: "Back",
};

/// The online screens' texts are reached through these, never from `PT` and `EN`: a static's
/// reference is kept by whatever keeps the static, and the app's module keeps the app's texts,
/// so both languages' online texts would be downloaded with the first screen. Called only from
/// the online modules' screens, each goes with its texts to the module that calls it, or to the
/// chunk the modules share when several call it (`online`). `scripts/test.sh` checks that none of
/// them came back to the app's module.
impl Texts {
    /// The account's and online play's screens.
    pub fn online(&self) -> &'static OnlineTexts {
        if self.pt { &ONLINE_PT } else { &ONLINE_EN }
    }

    /// The mini-ranking screens.
    pub fn groups(&self) -> &'static GroupTexts {
        if self.pt { &GROUPS_PT } else { &GROUPS_EN }
    }

    /// The invitation rooms.
    pub fn rooms(&self) -> &'static RoomTexts {
        if self.pt { &ROOMS_PT } else { &ROOMS_EN }
    }

    /// Jogo da Velha 2.0's competitive mode.
    pub fn competitive(&self) -> &'static CompetitiveTexts {
        if self.pt {
            &COMPETITIVE_PT
        } else {
            &COMPETITIVE_EN
        }
    }

    /// The subscription that opens online play (ON-A03).
    pub fn subscription(&self) -> &'static SubscriptionTexts {
        if self.pt {
            &SUBSCRIPTION_PT
        } else {
            &SUBSCRIPTION_EN
        }
    }
}

/// `n` and the word's singular or plural: both languages say `0 vitórias`, `0 wins`.
pub fn counted(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Portuguese unless the device asks for English.
pub fn texts_for_locale(locale: &str) -> &'static Texts {
    if locale.to_ascii_lowercase().starts_with("en") {
        &EN
    } else {
        &PT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The online screens speak the app's language: each language's texts pick their own.
    #[test]
    fn the_online_screens_texts_are_in_the_apps_language() {
        assert_eq!((PT.lang, PT.pt, PT.online().pt), ("pt-BR", true, true));
        assert_eq!((EN.lang, EN.pt, EN.online().pt), ("en", false, false));
        assert_eq!(PT.groups().title, GROUPS_PT.title);
        assert_eq!(EN.rooms().invitation, ROOMS_EN.invitation);
        assert_eq!(EN.subscription().title, SUBSCRIPTION_EN.title);
        assert_eq!(PT.competitive().title, COMPETITIVE_PT.title);
    }

    /// CLASSIC-R07: the series' counts agree with their numbers in both languages.
    #[test]
    fn classic_r07_the_series_counts_take_the_plural_of_their_number() {
        let said = |t: &Texts, n| [(t.wins)(n), (t.draws)(n), (t.losses)(n)];
        assert_eq!(said(&PT, 0), ["0 vitórias", "0 velhas", "0 derrotas"]);
        assert_eq!(said(&PT, 1), ["1 vitória", "1 velha", "1 derrota"]);
        assert_eq!(said(&PT, 2), ["2 vitórias", "2 velhas", "2 derrotas"]);
        assert_eq!(said(&EN, 0), ["0 wins", "0 draws", "0 losses"]);
        assert_eq!(said(&EN, 1), ["1 win", "1 draw", "1 loss"]);
        assert_eq!(said(&EN, 2), ["2 wins", "2 draws", "2 losses"]);
    }

    /// CUBE-V04 and CUBE-V03: what the cube says of a layer's rotation calls it a rotation in
    /// English ("giro" in Portuguese); "turn" is only ever a player's ("vez").
    #[test]
    fn cube_v04_a_layer_rotation_is_never_called_a_turn() {
        let said = |t: &Texts| {
            let online = t.online();
            vec![
                t.tagline_cube.to_owned(),
                t.next_turn_free.to_owned(),
                t.next_turn_one_way.to_owned(),
                t.turns_title.to_owned(),
                t.wrong_direction.to_owned(),
                t.second_free_turn.to_owned(),
                t.replays.both_lines.to_owned(),
                (online.won_both_lines)("Bia"),
                online.lost_both_lines.to_owned(),
            ]
        };
        for en in said(&EN)
            .iter()
            .chain(EN.only_way.map(str::to_owned).iter())
        {
            let en = en.to_lowercase();
            assert!(en.contains("rotat"), "{en}");
            assert!(!en.replace("per turn", "").contains("turn"), "{en}");
        }
        for pt in said(&PT) {
            assert!(pt.to_lowercase().contains("gir"), "{pt}");
        }
        assert_eq!(EN.second_free_turn, "Only one free rotation per turn.");
        assert_eq!(PT.second_free_turn, "Só um giro livre por vez.");
    }

    /// SUPER-R05: the coin names who starts before the verb, as both languages say it.
    #[test]
    fn super_r05_the_starter_is_the_subject() {
        assert_eq!((PT.starts)(Player::O), "O começa");
        assert_eq!((EN.starts)(Player::X), "X starts");
    }
}
