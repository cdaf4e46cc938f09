//! `pbrain-caro`: caro's engine as a Gomocup brain, for managers that
//! look for executables named `pbrain-*` (the same as `caro brain`).

fn main() {
    caro_gomocup::brain::run(std::io::BufReader::new(std::io::stdin()), std::io::stdout());
}
