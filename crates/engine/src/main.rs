//! `velha-engine`: reads protocol commands on standard input, answers each with one line.

use std::io::{BufRead, Write};

use velha_engine::{Reply, Session};

fn main() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut session = Session::new();
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let reply = match std::str::from_utf8(&buffer) {
            Ok(text) => session.handle(text.trim_end_matches(['\n', '\r'])),
            Err(_) => Reply::Line("error the line is not valid UTF-8".into()),
        };
        let line = match reply {
            Reply::Quit => return,
            Reply::Line(line) => line,
        };
        // A closed output means nobody listens any more: stop quietly instead of panicking.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}
