//! Accounts, optional beside guest play: names, passwords hashed with
//! Argon2id, and session tokens of which only a hash is stored.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version, ARGON2ID_IDENT};
use sha2::{Digest, Sha256};

/// The cookie that carries a session's token.
pub const SESSION_COOKIE: &str = "caro_session";

/// How long a session lasts after its log-in, in seconds (30 days).
pub const SESSION_SECS: i64 = 30 * 24 * 60 * 60;

/// Shortest password, in characters.
pub const MIN_PASSWORD: usize = 8;

/// Longest password, in bytes (Argon2 takes any length; this bounds the
/// work a request can ask for).
pub const MAX_PASSWORD: usize = 256;

/// What a deleted account is shown as.
pub const DELETED_NAME: &str = "deleted";

/// A name or password that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CredentialError {
    /// The name breaks the rules for names.
    #[error("a name has 3 to 20 characters, each a letter (a-z, A-Z), a digit, '_' or '-'")]
    BadName,
    /// A name kept for the app itself.
    #[error("the name \"{0}\" is reserved")]
    ReservedName(String),
    /// The password is too short or too long.
    #[error("a password has at least {MIN_PASSWORD} characters and at most {MAX_PASSWORD} bytes")]
    BadPassword,
}

/// The key a name is unique under: its lower case, after checking it is
/// 3–20 ASCII letters, digits, `_` or `-`.
///
/// # Errors
/// [`CredentialError::BadName`] or [`CredentialError::ReservedName`].
pub fn name_key(name: &str) -> Result<String, CredentialError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !(3..=20).contains(&name.len()) || !name.chars().all(allowed) {
        return Err(CredentialError::BadName);
    }
    let key = name.to_ascii_lowercase();
    if matches!(
        key.as_str(),
        DELETED_NAME | "human" | "guest" | "admin" | "caro"
    ) {
        return Err(CredentialError::ReservedName(name.to_string()));
    }
    Ok(key)
}

/// Checks a new password's length.
///
/// # Errors
/// [`CredentialError::BadPassword`].
pub fn check_password(password: &str) -> Result<(), CredentialError> {
    if password.chars().count() < MIN_PASSWORD || password.len() > MAX_PASSWORD {
        return Err(CredentialError::BadPassword);
    }
    Ok(())
}

/// Argon2id's working memory, kept and reused: at most one buffer per
/// core, so however many log-ins arrive at once the hashes hold a bounded
/// amount of memory (19 MiB each by default) and give none of it back to
/// the allocator's per-thread arenas to keep.
static WORK: LazyLock<Vec<Mutex<Vec<Block>>>> = LazyLock::new(|| {
    let n = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    (0..n).map(|_| Mutex::new(Vec::new())).collect()
});

/// Which buffer a caller waits for when all are busy.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` with Argon2 working memory of at least `blocks` blocks.
fn with_work<T>(blocks: usize, f: impl FnOnce(&mut [Block]) -> T) -> T {
    let mut work = WORK
        .iter()
        .find_map(|slot| slot.try_lock().ok())
        .unwrap_or_else(|| {
            let i = NEXT.fetch_add(1, Ordering::Relaxed) % WORK.len();
            WORK[i].lock().unwrap_or_else(|e| e.into_inner())
        });
    if work.len() < blocks {
        work.resize(blocks, Block::default());
    }
    f(&mut work[..blocks])
}

/// Argon2id over `password` and `salt` with `params`: the raw output.
fn argon2id(params: &Params, password: &str, salt: &[u8]) -> Result<Vec<u8>, String> {
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut out = vec![0u8; params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN)];
    with_work(params.block_count(), |work| {
        argon.hash_password_into_with_memory(password.as_bytes(), salt, &mut out, work)
    })
    .map_err(|e| e.to_string())?;
    Ok(out)
}

/// A password's Argon2id hash (PHC string, salt and parameters included;
/// the crate's default parameters: 19 MiB, 2 passes, 1 lane).
///
/// # Errors
/// Only if the hasher fails (it does not for a checked password).
pub fn hash_password(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| e.to_string())?;
    let params = Params::default();
    let out = argon2id(&params, password, &salt)?;
    let salt_string = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    let hash = PasswordHash {
        algorithm: ARGON2ID_IDENT,
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(salt_string.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
    };
    Ok(hash.to_string())
}

/// A hash no password matches, verified when a log-in names nobody, so
/// that a failed log-in takes as long whether the name exists or not.
static NOBODY: LazyLock<String> =
    LazyLock::new(|| hash_password("no account has this password").unwrap_or_default());

/// Whether `password` matches `hash` (`None`: no such account; the same
/// work is done and the answer is `false`).
pub fn verify_password(hash: Option<&str>, password: &str) -> bool {
    let found = hash.is_some();
    let hash = hash.unwrap_or(NOBODY.as_str());
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Ok(params), Some(salt), Some(expected)) =
        (Params::try_from(&parsed), parsed.salt, parsed.hash)
    else {
        return false;
    };
    if parsed.algorithm != ARGON2ID_IDENT {
        return false;
    }
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let Ok(out) = argon2id(&params, password, salt) else {
        return false;
    };
    // Output compares in constant time.
    let matches = Output::new(&out).is_ok_and(|o| o == expected);
    found && matches
}

/// A new session token: 32 random bytes, hex.
///
/// # Errors
/// When the system's random source fails.
pub fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
    Ok(hex(&bytes))
}

/// What is stored of a token: its SHA-256, hex.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `Set-Cookie` value that holds a session (`Secure` when the
/// server's public address is https).
pub fn session_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{SESSION_COOKIE}={token}; Path=/; Max-Age={SESSION_SECS}; HttpOnly; SameSite=Lax{secure}"
    )
}

/// The `Set-Cookie` value that drops the session cookie.
pub fn cleared_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{secure}")
}

/// The session token in a request's `Cookie` headers, if any.
pub fn token_in<'a>(cookies: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    cookies
        .flat_map(|header| header.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, value)| *name == SESSION_COOKIE && !value.is_empty())
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_keyed_by_their_lower_case() {
        assert_eq!(name_key("Nam_Vo-2"), Ok("nam_vo-2".into()));
        assert_eq!(name_key("abc"), Ok("abc".into()));
        for bad in [
            "ab",
            "a".repeat(21).as_str(),
            "Nguyễn",
            "a b",
            "<b>x</b>",
            "",
        ] {
            assert_eq!(name_key(bad), Err(CredentialError::BadName), "{bad}");
        }
        assert!(matches!(
            name_key("Deleted"),
            Err(CredentialError::ReservedName(_))
        ));
    }

    #[test]
    fn passwords_have_a_length_within_bounds() {
        assert!(check_password("12345678").is_ok());
        assert!(check_password("mật khẩu").is_ok());
        assert_eq!(check_password("1234567"), Err(CredentialError::BadPassword));
        assert_eq!(
            check_password(&"x".repeat(MAX_PASSWORD + 1)),
            Err(CredentialError::BadPassword)
        );
    }

    #[test]
    fn a_hash_is_argon2id_salted_and_verifies_only_its_password() {
        let a = hash_password("correct horse").unwrap();
        let b = hash_password("correct horse").unwrap();
        assert!(a.starts_with("$argon2id$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert!(verify_password(Some(&a), "correct horse"));
        assert!(!verify_password(Some(&a), "correct horse!"));
        assert!(!verify_password(None, "no account has this password"));
        assert!(!verify_password(Some("not a hash"), "x"));
        // The same PHC string the crate's own hasher makes and checks.
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let theirs = Argon2::default()
            .hash_password(b"correct horse", &SaltString::encode_b64(&[7; 16]).unwrap())
            .unwrap()
            .to_string();
        assert!(verify_password(Some(&theirs), "correct horse"));
        let parsed = PasswordHash::new(&a).unwrap();
        assert!(Argon2::default()
            .verify_password(b"correct horse", &parsed)
            .is_ok());
    }

    #[test]
    fn tokens_are_random_and_stored_as_their_hash() {
        let t = new_token().unwrap();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token().unwrap());
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_cookie_is_http_only_and_same_site_and_read_back() {
        let c = session_cookie("t0k", true);
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.ends_with("Secure"));
        assert!(!session_cookie("t0k", false).contains("Secure"));
        let headers = ["theme=dark; caro_session=t0k", "other=1"];
        assert_eq!(token_in(headers.into_iter()), Some("t0k"));
        assert_eq!(token_in(["caro_session="].into_iter()), None);
        assert_eq!(token_in(std::iter::empty()), None);
    }
}
