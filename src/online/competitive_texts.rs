//! What Jogo da Velha 2.0's competitive mode says (ON-V01, V2-R05, V2-R06), in Brazilian
//! Portuguese and English.

/// The competitive mode's texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct CompetitiveTexts {
    pub title: &'static str,
    pub about: &'static str,
    pub your_rating: &'static str,
    pub search: &'static str,
    pub searching: &'static str,
    /// Followed by a number of rating points.
    pub accepting: &'static str,
    pub points_apart: &'static str,
    /// Followed by seconds.
    pub waited: &'static str,
    pub cancel: &'static str,
    pub leaderboard: &'static str,
    pub nobody_yet: &'static str,
    pub player: &'static str,
    pub rating: &'static str,
    pub record: &'static str,
    pub rating_now: &'static str,
    pub again: &'static str,
    pub you_lost_turn: &'static str,
    pub they_lost_turn: &'static str,
    pub strikes: &'static str,
}

/// Brazilian Portuguese.
pub static COMPETITIVE_PT: CompetitiveTexts = CompetitiveTexts {
    title: "2.0 competitivo",
    about: "Partidas online de Jogo da Velha 2.0 com 1 minuto por jogada: vitória +30, velha 0, derrota −20.",
    your_rating: "Seu rating",
    search: "Procurar adversário",
    searching: "Procurando adversário…",
    accepting: "Aceitando quem estiver a até",
    points_apart: "pontos do seu rating",
    waited: "Esperando há",
    cancel: "Parar de procurar",
    leaderboard: "Ranking do 2.0",
    nobody_yet: "Ninguém jogou valendo rating ainda.",
    player: "Jogador",
    rating: "Rating",
    record: "V-E-D",
    rating_now: "Seu rating:",
    again: "Jogar de novo",
    you_lost_turn: "Seu tempo acabou: você perdeu a vez.",
    they_lost_turn: "O tempo do adversário acabou: sua vez, jogue em qualquer tabuleiro.",
    strikes: "Quem perde a vez 3 vezes seguidas perde a partida.",
};

/// English.
pub static COMPETITIVE_EN: CompetitiveTexts = CompetitiveTexts {
    title: "2.0 competitive",
    about: "Online Tic-tac-toe 2.0 matches with 1 minute a move: a win +30, a draw 0, a loss −20.",
    your_rating: "Your rating",
    search: "Find an opponent",
    searching: "Looking for an opponent…",
    accepting: "Accepting anyone within",
    points_apart: "points of your rating",
    waited: "Waiting for",
    cancel: "Stop looking",
    leaderboard: "2.0 leaderboard",
    nobody_yet: "Nobody has played rated yet.",
    player: "Player",
    rating: "Rating",
    record: "W-D-L",
    rating_now: "Your rating:",
    again: "Play again",
    you_lost_turn: "Your time ran out: you lost the turn.",
    they_lost_turn: "Your opponent's time ran out: your turn, play in any board.",
    strikes: "Losing the turn 3 times in a row loses the match.",
};
