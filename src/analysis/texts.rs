//! What the analysis says (ANA-01, ANA-09), in Brazilian Portuguese and English.

use velha_ai::analysis::{Exact, Verdict};

/// The analysis's texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct AnalysisTexts {
    pub analyse: &'static str,
    pub analysing: &'static str,
    /// "{done} of {total} positions".
    pub progress: &'static str,
    pub graph: &'static str,
    pub tap_a_mark: &'static str,
    pub exact_note: &'static str,
    pub estimate_note: &'static str,
    pub failed: &'static str,
    pub not_loaded: &'static str,
    /// The four verdicts, best first (ANA-03).
    pub verdicts: [&'static str; 4],
    /// The three faults' column titles in the summary.
    pub faults: [&'static str; 3],
    pub best: &'static str,
    /// "{player}'s chance of winning".
    pub chance_of: &'static str,
    pub lost_turn: &'static str,
    /// "Decided at move {n}".
    pub decided: &'static str,
    /// "wins in {n} moves", and in one.
    pub wins_in: [&'static str; 2],
    pub draw: &'static str,
    /// "loses in {n} moves", and in one.
    pub loses_in: [&'static str; 2],
    pub won: &'static str,
    pub lost: &'static str,
    /// "Dica ({n})": the button, with the hints left (ANA-10).
    pub hint: &'static str,
    pub hint_thinking: &'static str,
    pub hint_says: &'static str,
    /// "Onde eu errei?" and the review's controls (ANA-11).
    pub where_wrong: &'static str,
    pub previous: &'static str,
    pub next: &'static str,
    pub back_to_game: &'static str,
}

impl AnalysisTexts {
    /// The verdict's name.
    pub fn verdict(&self, v: Verdict) -> &'static str {
        self.verdicts[v as usize]
    }

    /// An exact value in words: "vence em 3 lances", "velha", "perde em 2 lances".
    pub fn exact(&self, e: Exact) -> String {
        match e {
            Exact::Win(0) => self.won.to_owned(),
            Exact::Loss(0) => self.lost.to_owned(),
            Exact::Win(1) => self.wins_in[1].to_owned(),
            Exact::Win(n) => self.wins_in[0].replace("{n}", &n.to_string()),
            Exact::Draw => self.draw.to_owned(),
            Exact::Loss(1) => self.loses_in[1].to_owned(),
            Exact::Loss(n) => self.loses_in[0].replace("{n}", &n.to_string()),
        }
    }
}

/// Brazilian Portuguese.
pub static ANALYSIS_PT: AnalysisTexts = AnalysisTexts {
    analyse: "Analisar",
    analysing: "Analisando a partida…",
    progress: "{done} de {total} posições",
    graph: "Chance de vitória de X ao longo da partida",
    tap_a_mark: "Toque numa marca do gráfico para ir ao lance.",
    exact_note: "Análise exata: o Jogo da Velha está resolvido.",
    estimate_note: "Estimativa do computador, feita neste aparelho.",
    failed: "Não foi possível analisar esta partida.",
    not_loaded: "A análise não carregou. Verifique a conexão.",
    verdicts: ["ótima", "imprecisão", "erro", "erro grave"],
    faults: ["Imprecisões", "Erros", "Erros graves"],
    best: "Melhor",
    chance_of: "Chance de vitória de {player}",
    lost_turn: "Vez perdida no relógio.",
    decided: "A partida foi decidida no lance {n}.",
    wins_in: ["vence em {n} lances", "vence no próximo lance"],
    draw: "velha",
    loses_in: ["perde em {n} lances", "perde no próximo lance"],
    won: "venceu",
    lost: "perdeu",
    hint: "Dica ({n})",
    hint_thinking: "Pensando…",
    hint_says: "Jogue em",
    where_wrong: "Onde eu errei?",
    previous: "‹ Lance anterior",
    next: "Próximo lance ›",
    back_to_game: "Voltar ao jogo",
};

/// English.
pub static ANALYSIS_EN: AnalysisTexts = AnalysisTexts {
    analyse: "Analyse",
    analysing: "Analysing the game…",
    progress: "{done} of {total} positions",
    graph: "X's chance of winning through the game",
    tap_a_mark: "Tap a mark on the graph to go to that move.",
    exact_note: "Exact analysis: tic-tac-toe is solved.",
    estimate_note: "The computer's estimate, made on this device.",
    failed: "This game could not be analysed.",
    not_loaded: "The analysis did not load. Check the connection.",
    verdicts: ["best", "inaccuracy", "mistake", "blunder"],
    faults: ["Inaccuracies", "Mistakes", "Blunders"],
    best: "Best",
    chance_of: "{player}'s chance of winning",
    lost_turn: "Turn lost on the clock.",
    decided: "The game was decided at move {n}.",
    wins_in: ["wins in {n} moves", "wins with the next move"],
    draw: "draw",
    loses_in: ["loses in {n} moves", "loses with the next move"],
    won: "won",
    lost: "lost",
    hint: "Hint ({n})",
    hint_thinking: "Thinking…",
    hint_says: "Play",
    where_wrong: "Where did I go wrong?",
    previous: "‹ Previous move",
    next: "Next move ›",
    back_to_game: "Back to the game",
};
