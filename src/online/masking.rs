//! Password fields on the native build: Blitz draws an `input type=password` in clear, so the
//! field shows one dot per character and the password itself is rebuilt from each edit.
//! Typing, pasting and deleting at the end, and replacing everything, keep it exact; an edit
//! in the middle of the dots is taken as one at the end (the dots show no position anyway).

/// What the field shows for `password`.
pub const DOT: char = '•';

/// The field's text for a password.
pub fn masked(password: &str) -> String {
    std::iter::repeat_n(DOT, password.chars().count()).collect()
}

/// The password after the field's text became `shown`: the dots that are left keep that many
/// characters of the password, and what is not a dot was typed or pasted.
pub fn unmask(password: &str, shown: &str) -> String {
    let kept = shown.chars().filter(|c| *c == DOT).count();
    let typed = shown.chars().filter(|c| *c != DOT);
    password.chars().take(kept).chain(typed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays edits on the field as a person makes them and checks the password against the
    /// plain one kept beside, for many random edit sequences.
    #[test]
    fn on_a01_the_dots_keep_the_password_through_typing_pasting_and_deleting() {
        let mut seed = 0x5eed_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let alphabet: Vec<char> = "abcXYZ019-_ çãé😀".chars().collect();
        for _ in 0..2000 {
            let (mut password, mut plain) = (String::new(), String::new());
            for _ in 0..next(30) {
                let shown = masked(&password);
                let edited = match next(4) {
                    // Typing or pasting at the end.
                    0 | 1 => {
                        let text: String = (0..1 + next(5))
                            .map(|_| alphabet[next(alphabet.len())])
                            .collect();
                        plain.push_str(&text);
                        format!("{shown}{text}")
                    }
                    // Backspace at the end.
                    2 => {
                        plain.pop();
                        let mut s = shown.clone();
                        s.pop();
                        s
                    }
                    // Select all and type.
                    _ => {
                        let c = alphabet[next(alphabet.len())];
                        plain = c.to_string();
                        c.to_string()
                    }
                };
                password = unmask(&password, &edited);
                assert_eq!(password, plain);
                assert_eq!(masked(&password).chars().count(), plain.chars().count());
                assert!(masked(&password).chars().all(|c| c == DOT));
            }
        }
    }
}
