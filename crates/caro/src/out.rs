//! Reports on standard output that end quietly when nobody reads them any
//! more: `caro bench | head -3` stops the bench instead of panicking on the
//! closed pipe, as `println!` would.

use std::fmt;
use std::io::{self, Write};

/// Prints a line to standard output, as `println!` does.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

/// Writes to standard output. When the reader has gone (a closed pipe),
/// the program ends at once with success: what was asked for was read as
/// far as it was wanted. Any other failure to write ends it with an error.
pub fn write(text: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}
