// Plays a random legal action in any game, over the stdio protocol (JSON lines): the standard
// library only, so it builds with rustc alone, offline.
use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        if line.starts_with("{\"type\": \"game_start\"") {
            // the game's seed: an integer of up to 64 bits
            let seed = line.split("\"seed\": ").nth(1).unwrap_or("0");
            let digits: String = seed.chars().take_while(|c| c.is_ascii_digit()).collect();
            state = digits.parse::<u64>().unwrap_or(1) | 1;
        } else if line.starts_with("{\"type\": \"decision\"") {
            let legal = line.split("\"legal\": \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("");
            let actions: Vec<&str> = legal.split(' ').collect();
            state ^= state << 13;  // xorshift64
            state ^= state >> 7;
            state ^= state << 17;
            writeln!(out, "{}", actions[(state % actions.len() as u64) as usize]).expect("stdout");
            out.flush().expect("stdout");
        }
    }
}
