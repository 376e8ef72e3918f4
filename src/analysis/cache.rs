//! Finished analyses kept on the device (ANA-08): the last [`KEPT`] in one stored value, a line
//! each, the newest last. A value that does not read back is a miss, never an error.

use velha_ai::analysis::{Analysis, Exact, Review, Verdict};
use velha_rules::Player;

use crate::platform;

const KEY: &str = "velha.analyses";

/// Analyses kept at most: a bound on what replays opened on this device can store.
pub const KEPT: usize = 20;

/// The kept analysis of the game `id` of `moves` moves, if any; it becomes the newest kept.
/// One that does not fit the game (another game under the same key, a damaged value) is a
/// miss.
pub fn load(id: &str, moves: usize) -> Option<Analysis> {
    let stored = platform::load(KEY)?;
    let (_, text) = lines(&stored).find(|(k, _)| *k == id)?;
    let analysis = decode(text).filter(|a| a.reviews.len() == moves)?;
    if lines(&stored).last() != Some((id, text)) {
        platform::save(KEY, &with(&stored, id, text));
    }
    Some(analysis)
}

/// Keeps `analysis` as the game `id`'s, forgetting the oldest past [`KEPT`].
pub fn keep(id: &str, analysis: &Analysis) {
    if id.is_empty() || id.contains(['\t', '\n']) {
        return;
    }
    let stored = platform::load(KEY).unwrap_or_default();
    platform::save(KEY, &with(&stored, id, &encode(analysis)));
}

/// `stored` with `id`'s entry replaced by `text`, newest last, at most [`KEPT`] entries.
fn with(stored: &str, id: &str, text: &str) -> String {
    let mut kept: Vec<(&str, &str)> = lines(stored).filter(|(k, _)| *k != id).collect();
    kept.push((id, text));
    let skip = kept.len().saturating_sub(KEPT);
    kept[skip..]
        .iter()
        .map(|(k, t)| format!("{k}\t{t}\n"))
        .collect()
}

fn lines(stored: &str) -> impl Iterator<Item = (&str, &str)> {
    stored.lines().filter_map(|line| line.split_once('\t'))
}

fn encode(a: &Analysis) -> String {
    let decided = a.decided.map_or("-".to_owned(), |d| d.to_string());
    let chances: Vec<String> = a.x_chances.iter().map(|c| format!("{c:.4}")).collect();
    let reviews: Vec<String> = a
        .reviews
        .iter()
        .map(|r| match r {
            None => "-".to_owned(),
            Some(r) => format!(
                "{}:{}:{:.4}:{:.4}:{}:{}",
                r.mover,
                r.verdict as u8,
                r.before,
                r.after,
                r.best.join(","),
                r.exact.map_or("-".to_owned(), |(b, a)| format!(
                    "{}/{}",
                    exact(b),
                    exact(a)
                ))
            ),
        })
        .collect();
    format!("{decided};{};{}", chances.join(","), reviews.join(" "))
}

fn exact(e: Exact) -> String {
    match e {
        Exact::Win(n) => format!("W{n}"),
        Exact::Draw => "D".into(),
        Exact::Loss(n) => format!("L{n}"),
    }
}

fn decode(text: &str) -> Option<Analysis> {
    let mut parts = text.split(';');
    let decided = match parts.next()? {
        "-" => None,
        d => Some(d.parse().ok()?),
    };
    let x_chances = parts
        .next()?
        .split(',')
        .map(chance)
        .collect::<Option<Vec<f32>>>()?;
    let reviews_text = parts.next()?;
    let reviews = if reviews_text.is_empty() {
        Vec::new()
    } else {
        reviews_text
            .split(' ')
            .map(|r| {
                if r == "-" {
                    Some(None)
                } else {
                    review(r).map(Some)
                }
            })
            .collect::<Option<Vec<_>>>()?
    };
    let fits = parts.next().is_none()
        && x_chances.len() == reviews.len() + 1
        && decided.is_none_or(|d| d < reviews.len());
    fits.then_some(Analysis {
        x_chances,
        reviews,
        decided,
    })
}

fn chance(text: &str) -> Option<f32> {
    text.parse().ok().filter(|c: &f32| (0.0..=1.0).contains(c))
}

fn review(text: &str) -> Option<Review> {
    let f: Vec<&str> = text.split(':').collect();
    let [mover, verdict, before, after, best, exact_pair] = f.as_slice() else {
        return None;
    };
    let mover = match *mover {
        "X" => Player::X,
        "O" => Player::O,
        _ => return None,
    };
    let verdict = match *verdict {
        "0" => Verdict::Best,
        "1" => Verdict::Inaccuracy,
        "2" => Verdict::Mistake,
        "3" => Verdict::Blunder,
        _ => return None,
    };
    let exact = match *exact_pair {
        "-" => None,
        pair => {
            let (b, a) = pair.split_once('/')?;
            Some((read_exact(b)?, read_exact(a)?))
        }
    };
    Some(Review {
        mover,
        best: if best.is_empty() {
            Vec::new()
        } else {
            best.split(',').map(str::to_owned).collect()
        },
        before: chance(before)?,
        after: chance(after)?,
        exact,
        verdict,
    })
}

fn read_exact(text: &str) -> Option<Exact> {
    match text.split_at_checked(1)? {
        ("D", "") => Some(Exact::Draw),
        ("W", n) => Some(Exact::Win(n.parse().ok()?)),
        ("L", n) => Some(Exact::Loss(n.parse().ok()?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Analysis {
        Analysis {
            x_chances: vec![0.5, 0.25, 1.0],
            reviews: vec![
                Some(Review {
                    mover: Player::X,
                    best: vec!["S+".into(), "a1".into()],
                    before: 0.625,
                    after: 0.25,
                    exact: Some((Exact::Win(3), Exact::Draw)),
                    verdict: Verdict::Blunder,
                }),
                None,
            ],
            decided: Some(1),
        }
    }

    #[test]
    fn ana_08_a_kept_analysis_reads_back_as_it_was() {
        assert_eq!(decode(&encode(&sample())), Some(sample()));
        let mut plain = sample();
        plain.decided = None;
        plain.reviews[0].as_mut().unwrap().exact = None;
        assert_eq!(decode(&encode(&plain)), Some(plain));
    }

    #[test]
    fn ana_08_a_damaged_entry_is_a_miss() {
        let good = encode(&sample());
        for bad in [
            "",
            "x;0.5;",
            "-;0.5,2.0;- -",
            "-;0.5,0.5;X:9:0.5:0.5::-",
            "-;0.5,0.5;Z:0:0.5:0.5::-",
            "-;0.5,0.5;X:0:0.5:0.5::Q1/D",
            "-;0.5,0.5,0.5;-",
            "1;0.5,0.5;-",
            "18446744073709551615;0.5,0.5;-",
        ] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
        assert_eq!(decode(&good[..good.len() - 3]), None);
    }

    #[test]
    fn ana_08_only_the_latest_analyses_are_kept() {
        let mut stored = String::new();
        for n in 0..KEPT + 5 {
            stored = with(&stored, &format!("game{n}"), "-;0.5;");
        }
        // Opening an old one again makes it the newest.
        stored = with(&stored, "game10", "-;1.0;");
        let ids: Vec<&str> = lines(&stored).map(|(k, _)| k).collect();
        assert_eq!(ids.len(), KEPT);
        assert_eq!(ids.first(), Some(&"game5"));
        assert_eq!(ids.last(), Some(&"game10"));
        assert_eq!(ids.iter().filter(|k| **k == "game10").count(), 1);
    }
}
