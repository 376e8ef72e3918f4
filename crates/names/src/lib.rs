//! # velha-names
//!
//! Whether a name a player types (their own at sign-up or rename, a group's, a room player's)
//! is refused because it holds a reserved word (one that passes for the staff, the system or
//! the game itself) or an offensive one, in Brazilian Portuguese and English.
//!
//! ```
//! use velha_names::{Refused, refused};
//!
//! assert_eq!(refused("Paulo_Silva"), None);
//! assert_eq!(refused("Computador"), None);
//! assert_eq!(refused("c4ralh0"), Some(Refused::Offensive));
//! assert_eq!(refused("Suporte.Oficial"), Some(Refused::Reserved));
//! ```
//!
//! ## How a name is read
//!
//! People dodge a word list by the way they write a word, so a name is compared in a folded
//! form ([`normalise`]): compatibility decomposition (full-width and styled letters become
//! plain ones) with every accent dropped, lower case, digits and `@ $ ! €` read as the letters
//! they stand for (`0`→o, `1`→i *and* `1`→l, `3`→e, `4`→a, `5`→s, `7`→t, `8`→b, `9`→g, `@`→a,
//! `$`→s, `!`→i, `€`→e), everything else that is no letter or digit removed. The symbols are
//! also read as separators, since "Oi!" is punctuation, not "oii". A letter of a listed word
//! stands for the same run of it in the name or for a run of three or more, so "puuuuta" holds
//! "puta" while "as" holds no "ass" and "Bonner" no "boner": ordinary words double letters,
//! people stretch them further.
//!
//! ## Where a word may sit
//!
//! Short words hide inside ordinary ones ("puta" in "computador", "cu" in "Cunha", "pau" in
//! "Paulo", "ass" in "Cássio", "cock" in "Hitchcock", "cunt" in "Scunthorpe"), so a listed word
//! has a reach:
//!
//! - **token** (words of fewer than 5 folded letters): it must be a whole token of the name —
//!   the name split at separators, at camel humps (`aB`) and where digits meet letters — or
//!   lie in a run of one-letter tokens (`P.u.t.a`), or be the whole name, with or without an
//!   `xX…Xx` decoration, a number after letters aside ("Ana1" is Ana's first account, not
//!   "anal"); a trailing `s` (a plural) still matches;
//! - **anywhere** (5 letters or more): anywhere in the folded name, since few ordinary words
//!   hold "caralho" or "motherfucker", as long as it lies inside one token or starts or ends
//!   where a token does: two names side by side make words across the seam by chance
//!   ("Gamer_Dali", "Lívia Graça" pass), while a word split on purpose still starts and ends
//!   on a cut ("Meu_Ca_Ralho" is refused). A Portuguese word of this reach also matches with
//!   its last vowel swapped for a diminutive or augmentative ending ("merdinha", "caralhudo");
//! - **whole name** (reserved words that are also ordinary: "equipe", "sistema", "root" …):
//!   only the name itself, so "Equipe Rocket" and "System of a Down" stay usable.
//!
//! A few words leave that length rule (`REACH` in the source), each with its reason, and a
//! match that lies inside a known innocent word (`INNOCENT`: "therapist" holds "rapist",
//! "Pica-Pau" holds "pau") does not count. A name that holds both kinds is refused as
//! offensive, the graver.
//!
//! All-lowercase names run together ("gamerdali") have no cuts to go by, and spellings no list
//! holds ("fuk", "biatch") pass: the check catches the common dodges, not every one.
//!
//! ## The lists
//!
//! `lists/pt.txt` and `lists/en.txt` come from the LDNOOBW lists (npm package `naughty-words`,
//! CC-BY-4.0), less the entries that would refuse ordinary names; `lists/pt-br.txt` adds the
//! Brazilian spellings and slang those lack and `lists/reserved.txt` the names that pass for
//! the staff or the game. `lists/README.md` gives their source, what was dropped and why, and
//! how to refresh them.

use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Why a name is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refused {
    /// It passes for the staff, the system or the game itself ("Admin", "Suporte", "A Velha").
    Reserved,
    /// It holds an offensive word.
    Offensive,
}

/// Whether `name` holds a reserved or an offensive word. None when the name may be used.
pub fn refused(name: &str) -> Option<Refused> {
    let lists = &*LISTS;
    let mut readings: Vec<Reading> = Vec::with_capacity(4);
    for (one, symbols) in [('i', true), ('l', true), ('i', false), ('l', false)] {
        let reading = Reading::new(name, one, symbols);
        if !readings.contains(&reading) {
            readings.push(reading);
        }
    }
    let places: Vec<Places> = readings.iter().map(|r| Places::new(r, lists)).collect();
    if places.iter().any(|p| p.hold(&lists.offensive)) {
        Some(Refused::Offensive)
    } else if places.iter().any(|p| p.hold(&lists.reserved)) {
        Some(Refused::Reserved)
    } else {
        None
    }
}

/// The folded form names are compared in: no accents, lower case, leetspeak read as letters
/// (`1` as i), separators removed. Repeated letters are kept: the comparison lets a letter of
/// a word stand for a run of three or more of it.
pub fn normalise(name: &str) -> String {
    Reading::new(name, 'i', true).text.into_iter().collect()
}

const PT: &str = include_str!("../lists/pt.txt");
const EN: &str = include_str!("../lists/en.txt");
const PT_BR: &str = include_str!("../lists/pt-br.txt");
const RESERVED: &str = include_str!("../lists/reserved.txt");

/// Where in a name a listed word may sit (see the crate's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    WholeName,
    Token,
    Anywhere,
}

/// Listed words (folded) whose reach is not the one their length gives.
const REACH: &[(&str, Reach)] = &[
    // Ordinary words first, reserved only when they are all the name says.
    ("equipe", Reach::WholeName),
    ("sistema", Reach::WholeName),
    ("system", Reach::WholeName),
    ("root", Reach::WholeName),
    ("oficial", Reach::WholeName),
    ("official", Reach::WholeName),
    // Long, but inside too many ordinary words to list them as innocent.
    ("admin", Reach::Token),     // badminton
    ("staff", Reach::Token),     // Stafford, Staffordshire
    ("suporte", Reach::Token),   // suportei, suportemos (verb forms)
    ("support", Reach::Token),   // supporter, supportive, unsupported
    ("velha", Reach::Token),     // velhaco, velharia
    ("avelha", Reach::Token),    // cavelha
    ("bicha", Reach::Token),     // barbicha, bichano, enrabichado, Bichara
    ("coito", Reach::Token),     // biscoito, açoito
    ("putaria", Reach::Token),   // computaria, disputaria, reputaria
    ("queca", Reach::Token),     // panqueca, enxaqueca, esqueça, moqueca
    ("vadia", Reach::Token),     // invadia, evadia
    ("veado", Reach::Token),     // chaveado
    ("viado", Reach::Token),     // enviado, aviador, desviado
    ("ecchi", Reach::Token),     // Vecchi, Secchi, Pecchia
    ("pubes", Reach::Token),     // pubescent
    ("raping", Reach::Token),    // scraping, draping
    ("rimming", Reach::Token),   // trimming, brimming
    ("semen", Reach::Token),     // Semenov, Semenya
    ("twink", Reach::Token),     // twinkle
    ("coons", Reach::Token),     // raccoons
    ("cocks", Reach::Token),     // peacocks, Hitchcocks
    ("sexual", Reach::Token),    // bissexual, homossexual: who someone is is no offence
    ("sexually", Reach::Token),  // asexually, bisexually
    ("sexuality", Reach::Token), // bisexuality, homosexuality
    // Short, but no ordinary Portuguese or English word holds it.
    ("fuck", Reach::Anywhere),
];

/// Ordinary words (folded) that hold a listed word of reach anywhere or token: a match
/// inside one does not count.
const INNOCENT: &[&str] = &[
    "agropec",    // grope (agropecuária)
    "vibratori",  // vibrator (vibratório)
    "sclerotic",  // erotic
    "therapist",  // rapist
    "penistone",  // penis (a Yorkshire town)
    "thorny",     // horny
    "thumping",   // humping
    "niggard",    // nigga
    "snigger",    // nigger
    "pussycat",   // pussy
    "pussyfoot",  // pussy
    "mrhandsome", // mr hands
    "cacetinho",  // cacete (a bread roll in Rio Grande do Sul)
    "porrinha",   // porra (a guessing game played with matchsticks)
    "biscateiro", // biscate (an odd-job man)
    "biscateira", // biscate (an odd-job woman)
    "picapau",    // pau (Pica-Pau, Woody Woodpecker)
    "paubrasil",  // pau (the tree Brazil is named after)
];

/// A folded word as runs of one letter: "puta" is p×1 u×1 t×1 a×1, "ass" a×1 s×2.
type Runs = Vec<(char, usize)>;

struct Word {
    runs: Runs,
    reach: Reach,
}

/// Listed words sorted by their first letter: a name is only compared with the words that
/// start with a letter it has where a word may start.
struct Words(Vec<Word>);

impl Words {
    fn new(entries: impl Iterator<Item = Word>) -> Words {
        let mut words: Vec<Word> = entries.collect();
        words.sort_by_key(|w| w.runs[0].0);
        Words(words)
    }

    fn starting(&self, letter: char, reach: Reach) -> impl Iterator<Item = &Word> {
        let from = self.0.partition_point(|w| w.runs[0].0 < letter);
        self.0[from..]
            .iter()
            .take_while(move |w| w.runs[0].0 == letter)
            .filter(move |w| w.reach == reach)
    }
}

struct Lists {
    offensive: Words,
    reserved: Words,
    innocent: Vec<Runs>,
}

static LISTS: LazyLock<Lists> = LazyLock::new(|| Lists {
    offensive: Words::new(
        [PT, EN, PT_BR]
            .into_iter()
            .flat_map(entries)
            .map(word)
            .chain(
                [PT, PT_BR]
                    .into_iter()
                    .flat_map(entries)
                    .flat_map(inflected),
            ),
    ),
    reserved: Words::new(entries(RESERVED).map(word)),
    innocent: INNOCENT.iter().map(|w| runs(w)).collect(),
});

fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines().map(str::trim).filter(|l| !l.is_empty())
}

fn word(entry: &str) -> Word {
    let folded = normalise(entry);
    let reach = match REACH.iter().find(|(w, _)| *w == folded) {
        Some(&(_, reach)) => reach,
        None if folded.chars().count() >= 5 => Reach::Anywhere,
        None => Reach::Token,
    };
    Word {
        runs: runs(&folded),
        reach,
    }
}

/// Portuguese endings of the diminutive, the augmentative and the doer, taking the place of a
/// word's last vowel.
const ENDINGS: &[&str] = &["inha", "inho", "ao", "ona", "uda", "udo", "eira", "eiro"];

/// A Portuguese word of reach anywhere with its last vowel swapped for each of [`ENDINGS`]:
/// "merdinha", "caralhudo", "bosteiro" hold no "merda", "caralho" or "bosta", and these forms
/// are how Brazilians write those words as often as not.
fn inflected(entry: &str) -> Vec<Word> {
    let folded = normalise(entry);
    match folded.strip_suffix(['a', 'e', 'o']) {
        Some(stem) if word(entry).reach == Reach::Anywhere => ENDINGS
            .iter()
            .map(|ending| Word {
                runs: runs(&format!("{stem}{ending}")),
                reach: Reach::Anywhere,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn runs(folded: &str) -> Runs {
    let mut runs: Runs = Vec::new();
    for c in folded.chars() {
        match runs.last_mut() {
            Some((last, n)) if *last == c => *n += 1,
            _ => runs.push((c, 1)),
        }
    }
    runs
}

/// What a character of a name is, for where tokens split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Lower,
    Upper,
    Caseless,
    Digit,
}

/// A name folded one way (the digit `1` as i or as l; `@ $ ! €` as letters or separators),
/// with where its tokens split.
#[derive(PartialEq, Eq)]
struct Reading {
    text: Vec<char>,
    /// `coarse[i]`: a separator or a camel hump stood before `text[i]` (`coarse[len]`: the end).
    coarse: Vec<bool>,
    /// As `coarse`, and also where digits and letters meet.
    fine: Vec<bool>,
    /// `digit[i]`: `text[i]` was a digit.
    digit: Vec<bool>,
}

impl Reading {
    fn new(name: &str, one: char, symbols: bool) -> Reading {
        let mut reading = Reading {
            text: Vec::new(),
            coarse: Vec::new(),
            fine: Vec::new(),
            digit: Vec::new(),
        };
        let mut prev: Option<Kind> = None;
        let mut gap = false;
        for c in name.nfkd().filter(|c| !is_combining_mark(*c)) {
            let (kind, c) = match c {
                '0'..='9' => (Kind::Digit, leet_digit(c, one)),
                '@' | '$' | '!' | '€' if symbols => (Kind::Caseless, leet_symbol(c)),
                c if c.is_uppercase() => (Kind::Upper, c),
                c if c.is_lowercase() => (Kind::Lower, c),
                c if c.is_alphabetic() => (Kind::Caseless, c),
                c if c.is_numeric() => (Kind::Digit, c),
                _ => {
                    gap = true;
                    continue;
                }
            };
            let coarse = reading.text.is_empty()
                || gap
                || (prev == Some(Kind::Lower) && kind == Kind::Upper);
            let mut first = true;
            for l in c.to_lowercase().filter(|l| !is_combining_mark(*l)) {
                reading.text.push(l);
                reading.coarse.push(first && coarse);
                reading.digit.push(kind == Kind::Digit);
                first = false;
            }
            prev = Some(kind);
            gap = false;
        }
        reading.coarse.push(true);
        // Digits split a token only where they begin or end it ("Carlos455", "4Ever"): inside
        // a word they stand for letters ("Pau1o" is Paulo, not "pau" and "o").
        let n = reading.text.len();
        reading.fine = reading.coarse.clone();
        let mut a = 0;
        while a < n {
            let b = (a + 1..=n).find(|&i| reading.coarse[i]).unwrap_or(n);
            let lead = (a..b).take_while(|&i| reading.digit[i]).count();
            let trail = (a..b).rev().take_while(|&i| reading.digit[i]).count();
            if lead < b - a {
                reading.fine[a + lead] = true;
                reading.fine[b - trail] = true;
            }
            a = b;
        }
        reading
    }
}

/// Where in a reading words are looked for, found once for both lists.
struct Places<'a> {
    reading: &'a Reading,
    /// The whole name and, when it has one, the name without its `xX…Xx` decoration.
    names: Vec<(usize, usize)>,
    /// The tokens between coarse cuts and those between fine cuts. A name or a coarse token
    /// is taken without the digits that end it after letters: "Ana1" is Ana's first account,
    /// not a disguise of "anal", so a short word must be the letters themselves.
    tokens: Vec<(usize, usize)>,
    /// Runs of two or more one-letter tokens: a word spelled out letter by letter.
    spelled: Vec<(usize, usize)>,
    /// Where innocent words lie.
    innocent: Vec<(usize, usize)>,
}

impl<'a> Places<'a> {
    fn new(reading: &'a Reading, lists: &Lists) -> Places<'a> {
        let text = &reading.text[..];
        let n = text.len();
        let lead = text.iter().take_while(|&&c| c == 'x').count();
        let trail = text.iter().rev().take_while(|&&c| c == 'x').count();
        let start = if lead >= 2 { lead } else { 0 };
        let end = if trail >= 2 { n - trail } else { n };
        let mut names = Vec::new();
        if n > 0 {
            names.push((0, n));
        }
        if start < end && (start, end) != (0, n) {
            names.push((start, end));
        }
        let cuts = |cuts: &[bool]| -> Vec<usize> { (0..cuts.len()).filter(|&i| cuts[i]).collect() };
        let (coarse, fine) = (cuts(&reading.coarse), cuts(&reading.fine));
        let bare = |(s, e): (usize, usize)| {
            let letters = (s..e)
                .rev()
                .find(|&i| !reading.digit[i])
                .map_or(s, |i| i + 1);
            (s, if letters > s { letters } else { e })
        };
        // A number beside letters is a number ("Carlos455" holds no "ass"); a name of digits
        // alone is still read ("80085").
        let tokens = names
            .iter()
            .copied()
            .chain(coarse.windows(2).map(|w| (w[0], w[1])))
            .map(bare)
            .chain(
                fine.windows(2)
                    .map(|w| (w[0], w[1]))
                    .filter(|&(s, e)| !(s..e).all(|i| reading.digit[i]) || (s, e) == (0, n)),
            )
            .collect();
        let mut spelled = Vec::new();
        let mut from: Option<usize> = None;
        for w in fine.windows(2) {
            match (w[1] - w[0] == 1, from) {
                (true, None) => from = Some(w[0]),
                (false, Some(f)) => {
                    spelled.push((f, w[0]));
                    from = None;
                }
                _ => {}
            }
        }
        spelled.extend(from.map(|f| (f, n)));
        spelled.retain(|&(s, e)| e - s >= 2);
        let innocent = lists
            .innocent
            .iter()
            .flat_map(|word| {
                // From any letter, a run's first too: "ButtercupPicaPau" still holds "picapau".
                (0..n).filter_map(|i| match_from(text, i, word).map(|(_, end)| (i, end)))
            })
            .collect();
        Places {
            reading,
            names,
            tokens,
            spelled,
            innocent,
        }
    }

    /// Whether a word of `words` sits here where its reach allows, outside innocent words.
    fn hold(&self, words: &Words) -> bool {
        let Reading {
            text, coarse, fine, ..
        } = self.reading;
        let counts = |(s, e): (usize, usize)| !self.innocent.iter().any(|&(a, b)| a <= s && e <= b);
        // A word inside the span. It starts where a run of letters starts ("Swammerdam" holds
        // no "merda") and lies inside one token or starts or ends where one does: the end of
        // one name and the start of the next make words by chance ("Gamer_Dali" holds no
        // "merda", "Lívia Graça" no "viagra").
        let inside = |(s, e): (usize, usize), reach: Reach| {
            (s..e)
                .filter(|&i| i == s || text[i - 1] != text[i])
                .any(|i| {
                    words.starting(text[i], reach).any(|w| {
                        match_from(&text[..e], i, &w.runs).is_some_and(|(end, long)| {
                            let placed = !coarse[i + 1..end].contains(&true)
                                || fine[i]
                                || fine[end]
                                || fine[long];
                            placed && counts((i, end))
                        })
                    })
                })
        };
        self.names.iter().any(|&(s, e)| {
            words
                .starting(text[s], Reach::WholeName)
                .any(|w| fits(&text[s..e], &w.runs, false))
        }) || self.tokens.iter().any(|&(s, e)| {
            words
                .starting(text[s], Reach::Token)
                .any(|w| fits(&text[s..e], &w.runs, true) && counts((s, e)))
        }) || self.spelled.iter().any(|&span| inside(span, Reach::Token))
            || inside((0, text.len()), Reach::Anywhere)
    }
}

/// Whether the span is exactly the word (or, with `plural`, the word and an `s`).
fn fits(span: &[char], word: &[(char, usize)], plural: bool) -> bool {
    let whole = |span: &[char]| match_from(span, 0, word).is_some_and(|(_, end)| end == span.len());
    whole(span) || (plural && span.last() == Some(&'s') && whole(&span[..span.len() - 1]))
}

/// Where `word` matches `text` from `start`: the ends of the shortest and of the longest
/// match. A letter of the word stands for the same run of letters in the text or for a run
/// of three or more: "fuuuck" is stretched "fuck", but "Bonner" is no "boner" nor "mood" a
/// "mod", since ordinary words double letters and people stretch them further.
fn match_from(text: &[char], start: usize, word: &[(char, usize)]) -> Option<(usize, usize)> {
    let mut at = start;
    for (i, &(letter, count)) in word.iter().enumerate() {
        let run = text[at..].iter().take_while(|&&c| c == letter).count();
        let stands = run == count || run >= count.max(3);
        if i + 1 == word.len() {
            // The last letter may be followed by more of itself: "fuckk" still holds "fuck".
            return (run >= count)
                .then(|| (at + count, if stands { at + run } else { at + count }));
        }
        if !stands {
            return None;
        }
        at += run;
    }
    None
}

fn leet_digit(c: char, one: char) -> char {
    match c {
        '0' => 'o',
        '1' => one,
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        '8' => 'b',
        '9' => 'g',
        other => other,
    }
}

fn leet_symbol(c: char) -> char {
    match c {
        '@' => 'a',
        '$' => 's',
        '!' => 'i',
        '€' => 'e',
        other => other,
    }
}

#[cfg(test)]
mod tests;
