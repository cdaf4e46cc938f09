//! `caro position`: read a position and print what the rules say about it.

use std::path::PathBuf;

use caro_core::code::{opening_field, PositionCode};
use caro_core::notation::{format_pos, parse_move_list};
use caro_core::opening::Opening;
use caro_core::psq::{read_psq_bytes, PsqRecord};
use caro_core::table::Sitter;
use caro_core::{BoardSize, Color, Game, GameSetup, Outcome, Rule, Rules, SetupError};
use clap::Args;
use serde_json::{json, Value};

use crate::out::say;
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// What `caro position --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro position --moves \"h8 i9 h9\"
  caro position --rule renju --moves \"h8 h7 i8 i7 j9 k11 j10 l12\"   # j8 is forbidden for black
  caro position --moves \"h8 i9 h9\" --best --time 1s
  caro position --rule renju --moves \"h8 g8 h9 h7 h10 i9 i7 i11 j9 j8\" --solve
  caro position --code v1.15x15.5.freestyle.free.b.HHIGHG --json";

/// Options of `caro position`.
#[derive(Args, Debug)]
pub struct PositionArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Who moves first: black or white (default black; renju: black only).
    #[arg(long, value_name = "COLOR")]
    first: Option<String>,
    /// Moves from the empty board in order, such as "h8 i9 j10" (commas
    /// also work): a column letter and a row number, row 1 at the bottom.
    #[arg(long, conflicts_with_all = ["psq", "code"])]
    moves: Option<String>,
    /// Read the game from a PSQ file (Piskvork's format); --k, --rule and
    /// --first replace the file's, and --size must agree with it.
    #[arg(long, value_name = "FILE", conflicts_with = "code")]
    psq: Option<PathBuf>,
    /// Read the game from a position code, as in a caro web address (the
    /// "code" of --json, which keeps the opening's decisions and offers of
    /// a code or a PSQ file); --k, --rule and --first replace the code's.
    #[arg(long)]
    code: Option<String>,
    /// Print one JSON object instead of the board.
    #[arg(long)]
    json: bool,
    /// Also search for the best move, with its score and line (by the
    /// player of --player: caro at full strength unless told).
    #[arg(long)]
    best: bool,
    /// Time for --best, such as 1s or 500ms (default 1s; none when only
    /// --depth is given).
    #[arg(long, value_name = "DURATION")]
    time: Option<String>,
    /// Depth limit for --best.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Player of --best: caro:N (1 to 10), minimax:N, quintuple, scoremap,
    /// random or pbrain:PATH (default caro:10).
    #[arg(long)]
    player: Option<String>,
    /// Threads for --best, 1 to 64 (caro uses more than one at level 10
    /// only).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// Look for a forced win of the side to move by continuous fours (VCF)
    /// and then by continuous threats (VCT).
    #[arg(long)]
    solve: bool,
    /// Node budget of each --solve search (the VCF, then the VCT).
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    solve_nodes: u64,
    /// Most memory the VCT search's proof table takes, in MiB. It needs up
    /// to about 60 bytes a node; past the limit it forgets the positions
    /// cheapest to find again (most often more nodes for a proof; every
    /// proof still complete). The VCF's cache of failures takes up to
    /// about 35 MB beside it.
    #[arg(long, value_name = "MIB", default_value_t = caro_engine::search::DEFAULT_SOLVE_TABLE_MB as u32,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    solve_mb: u32,
}

/// What `--solve` found.
struct Solved {
    /// "vcf" or "vct", and the first move of the win; `None` when neither
    /// was found.
    win: Option<(&'static str, caro_core::Pos)>,
    /// The win's main line, from its first move (empty with no win).
    line: Vec<caro_core::Pos>,
    /// The most plies the win takes whatever the defender plays, where
    /// known ([`caro_engine::search::WinLine::plies`]).
    plies: Option<u32>,
    /// With no win: whether the threat search ruled one out (every threat
    /// searched) rather than running out of nodes.
    ruled_out: bool,
    millis: u128,
}

fn solve(game: &Game, args: &PositionArgs) -> Option<Solved> {
    use caro_engine::search::VctVerdict;
    if !args.solve || game.is_over() {
        return None;
    }
    let started = std::time::Instant::now();
    let vcf = caro_engine::search::solve_vcf_line(game, 150, args.solve_nodes);
    let (win, ruled_out, line) = match vcf {
        Some(line) => (line.moves.first().map(|&m| ("vcf", m)), false, line),
        None => {
            let (vct, line) =
                caro_engine::search::solve_vct_line(game, args.solve_nodes, args.solve_mb as usize);
            match vct.verdict {
                VctVerdict::Win(m) => (Some(("vct", m)), false, line),
                VctVerdict::NoWin => (None, true, line),
                VctVerdict::NotFound => (None, false, line),
            }
        }
    };
    Some(Solved {
        win,
        line: line.moves,
        plies: line.plies,
        ruled_out,
        millis: started.elapsed().as_millis(),
    })
}

/// The engine's answer for `--best`.
struct Best {
    best: caro_core::Pos,
    info: Option<caro_engine::SearchInfo>,
}

fn search_best(game: &Game, args: &PositionArgs) -> Result<Option<Best>, UsageError> {
    if !args.best || game.is_over() {
        return Ok(None);
    }
    let source = crate::players::parse_player(args.player.as_deref().unwrap_or("caro:10"))?;
    let time = match (&args.time, args.depth) {
        (Some(t), _) => Some(crate::matchcmd::parse_duration(t)?),
        (None, Some(_)) => None,
        (None, None) => Some(std::time::Duration::from_secs(1)),
    };
    let limits = caro_engine::Limits {
        move_time: time,
        depth: args.depth,
        threads: Some(usize::from(args.threads)),
        ..caro_engine::Limits::default()
    };
    let mut player = source
        .build_player(1)
        .map_err(|e| UsageError(e.to_string()))?;
    let mut sink = |_: &caro_engine::SearchInfo| {};
    let mut ctx = caro_engine::Context::new(limits, caro_engine::StopFlag::new(), &mut sink);
    let d = player
        .choose(game, &mut ctx)
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(Some(Best {
        best: d.best,
        info: d.info,
    }))
}

/// Board, k, rule and first player given on the command line, before
/// defaults are filled in.
struct Overrides {
    size: Option<BoardSize>,
    k: Option<u8>,
    rule: Option<Rule>,
    first: Option<Color>,
}

fn parse_overrides(args: &PositionArgs) -> Result<Overrides, UsageError> {
    let first = args
        .first
        .as_deref()
        .map(|s| s.parse::<Color>().map_err(|e| UsageError(e.to_string())))
        .transpose()?;
    Ok(Overrides {
        size: args.rules.size()?,
        k: args.rules.k()?,
        rule: args.rules.rule()?,
        first,
    })
}

/// Builds the game the arguments describe, with the opening field of its
/// position code: the opening, decisions and offers of a code or a PSQ
/// file, `free` otherwise.
fn load_game(args: &PositionArgs) -> Result<(Game, String), UsageError> {
    let o = parse_overrides(args)?;
    let mut opening = Opening::Free.name().to_string();
    let mut setup = if let Some(path) = &args.psq {
        let bytes = std::fs::read(path)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
        let record: PsqRecord =
            read_psq_bytes(&bytes).map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        // A game under a swap or renju opening must replay with its
        // choices and offers.
        if record.opening != Opening::Free {
            record
                .to_table([Sitter::Human, Sitter::Human])
                .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        }
        opening = opening_field(record.opening, &record.choices, &record.offers);
        let mut s = GameSetup::new(record.size, record.k, record.rule);
        s.first = record.first;
        s.moves = record.moves;
        if o.size.is_some_and(|size| size != s.size) {
            return Err(UsageError(format!(
                "--size {} disagrees with the {} board of {}",
                o.size.map(|s| s.to_string()).unwrap_or_default(),
                s.size,
                path.display()
            )));
        }
        s
    } else if let Some(code) = &args.code {
        let c = PositionCode::decode(code).map_err(|e| UsageError(e.to_string()))?;
        // A game under a swap or renju opening must replay with its
        // decisions and offers.
        if c.opening != Opening::Free.name() {
            c.to_table([Sitter::Human, Sitter::Human])
                .map_err(|e| UsageError(e.to_string()))?;
        }
        opening.clone_from(&c.opening);
        let mut s = GameSetup::new(c.size, c.k, c.rule);
        s.first = c.first;
        s.moves = c.moves;
        s
    } else {
        let size = o.size.unwrap_or(BoardSize::square(15));
        let mut s = GameSetup::new(size, Rules::default_k(size), Rule::Freestyle);
        if let Some(text) = &args.moves {
            s.moves = parse_move_list(text, size)
                .map_err(|(n, e)| UsageError(format!("move {n}: {e}")))?;
        }
        s
    };
    if let Some(k) = o.k {
        setup.k = k;
    }
    if let Some(rule) = o.rule {
        setup.rule = rule;
    }
    if let Some(first) = o.first {
        setup.first = first;
    }
    let game = Game::from_setup(&setup).map_err(|e| match e {
        SetupError::Move { number, error } => UsageError(format!(
            "move {number} ({}): {error}",
            format_pos(setup.moves[number - 1], setup.size)
        )),
        other => UsageError(other.to_string()),
    })?;
    Ok((game, opening))
}

/// The position code of `game` with the opening field it was read with,
/// as long as the opening still replays on the game's rules (`--rule` or
/// `--k` may have changed them), else with a free opening.
fn code_of(game: &Game, opening: &str) -> Option<String> {
    PositionCode::from_game(game, opening)
        .ok()
        .filter(|c| c.to_table([Sitter::Human, Sitter::Human]).is_ok())
        .or_else(|| PositionCode::from_game(game, Opening::Free.name()).ok())
        .map(|c| c.encode())
}

/// The result as JSON: `null`, `"draw"` or `{"winner": …, "line": […]}`.
fn result_json(game: &Game) -> Value {
    let size = game.size();
    match game.outcome() {
        None => Value::Null,
        Some(Outcome::Draw) => json!("draw"),
        Some(Outcome::Five { winner, line }) => json!({
            "winner": winner.name(),
            "line": line.points().map(|p| format_pos(p, size)).collect::<Vec<_>>(),
        }),
        Some(Outcome::Resigned { winner }) => json!({
            "winner": winner.name(),
            "line": [],
            "by": "resignation",
        }),
        Some(Outcome::Foul { winner, at, foul }) => json!({
            "winner": winner.name(),
            "line": [],
            "by": "foul",
            "foul": foul.label(),
            "at": format_pos(*at, size),
        }),
    }
}

/// Why a drawn game is over: a full board, or (renju) black with no legal
/// move left.
fn draw_text(game: &Game) -> &'static str {
    if game.board().is_full() {
        "draw: the board is full"
    } else {
        "draw: black has no legal move (every empty point is forbidden)"
    }
}

fn result_text(game: &Game) -> String {
    let size = game.size();
    match game.outcome() {
        None => format!("{} to move", game.to_move()),
        Some(Outcome::Draw) => draw_text(game).to_string(),
        Some(Outcome::Five { winner, line }) => format!(
            "{winner} wins: {}",
            line.points()
                .map(|p| format_pos(p, size))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Some(Outcome::Resigned { winner }) => format!("{winner} wins by resignation"),
        Some(Outcome::Foul { winner, at, foul }) => {
            format!(
                "{winner} wins: black played the {foul} at {}",
                format_pos(*at, size)
            )
        }
    }
}

/// Runs `caro position`.
pub fn run(args: &PositionArgs) -> Result<(), UsageError> {
    let (game, opening) = load_game(args)?;
    let size = game.size();
    let forbidden = game.forbidden_points();
    let mut forbidden_names: Vec<String> = forbidden
        .iter()
        .map(|&(p, _)| format_pos(p, size))
        .collect();
    forbidden_names.sort();
    let legal = game.legal_moves().len();
    let moves: Vec<String> = game.moves().iter().map(|&p| format_pos(p, size)).collect();
    let best = search_best(&game, args)?;
    let solved = solve(&game, args);
    let solve_json = solved.as_ref().map(|s| {
        json!({
            "win": s.win.map(|(kind, _)| kind),
            "move": s.win.map(|(_, m)| format_pos(m, size)),
            "line": s.line.iter().map(|&p| format_pos(p, size)).collect::<Vec<_>>(),
            "plies": s.plies,
            "ruled_out": s.ruled_out,
            "ms": s.millis,
        })
    });
    let best_json = best.as_ref().map(|b| {
        json!({
            "move": format_pos(b.best, size),
            "score": b.info.as_ref().map(|i| i.score.to_string()),
            "depth": b.info.as_ref().map(|i| i.depth),
            "nodes": b.info.as_ref().map(|i| i.nodes),
            "pv": b.info.as_ref().map(|i| i.pv.iter().map(|&p| format_pos(p, size)).collect::<Vec<_>>()),
        })
    });
    if args.json {
        let rules = game.rules();
        let value = json!({
            "size": size.to_string(),
            "width": size.width,
            "height": size.height,
            "k": rules.k,
            "rule": rules.rule.name(),
            "first": game.first().name(),
            "to_move": game.to_move().name(),
            "result": result_json(&game),
            "forbidden": forbidden_names,
            "legal_moves": legal,
            "moves": moves,
            "code": code_of(&game, &opening),
            "best": best_json,
            "solve": solve_json,
        });
        say!("{value}");
        return Ok(());
    }
    let last = game.last_move();
    let black_fouls = if game.is_over() {
        Vec::new()
    } else {
        game.black_forbidden_points()
    };
    let text = game.board().to_text_marked(|p| {
        black_fouls
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, f)| match f {
                caro_core::Foul::DoubleThree => '3',
                caro_core::Foul::DoubleFour => '4',
                caro_core::Foul::Overline => '6',
            })
    });
    crate::out::write(format_args!("{text}"));
    let rules = game.rules();
    say!(
        "{} {}, k={}, {} moves{}",
        rules.rule,
        size,
        rules.k,
        moves.len(),
        last.map(|p| format!(", last {}", format_pos(p, size)))
            .unwrap_or_default()
    );
    say!("{}", result_text(&game));
    if rules.rule.has_fouls() && !black_fouls.is_empty() {
        let names: Vec<String> = black_fouls
            .iter()
            .map(|&(p, f)| format!("{}({})", format_pos(p, size), f.label()))
            .collect();
        say!("forbidden for black: {}", names.join(" "));
    }
    if !game.is_over() {
        say!("legal moves: {legal}");
    }
    if let Some(s) = solved {
        let side = game.to_move().name();
        match s.win {
            Some((kind, m)) => {
                let within = s
                    .plies
                    .map(|p| format!(", within {p} plies"))
                    .unwrap_or_default();
                say!(
                    "solve: {side} wins by {} starting {}{within} ({} ms)",
                    kind.to_uppercase(),
                    format_pos(m, size),
                    s.millis
                );
                let line: Vec<String> = s.line.iter().map(|&p| format_pos(p, size)).collect();
                say!("line: {}", line.join(" "));
            }
            None if s.ruled_out => say!(
                "solve: no win by fours or threats for {side}: every threat searched and refuted ({} ms)",
                s.millis
            ),
            None => say!(
                "solve: no win by fours or threats found for {side} within {} nodes ({} ms)",
                args.solve_nodes, s.millis
            ),
        }
    }
    if let Some(b) = best {
        match b.info {
            Some(i) => say!(
                "best: {} score {} depth {} nodes {} pv {}",
                format_pos(b.best, size),
                i.score,
                i.depth,
                i.nodes,
                i.pv.iter()
                    .map(|&p| format_pos(p, size))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => say!("best: {}", format_pos(b.best, size)),
        }
    }
    Ok(())
}
