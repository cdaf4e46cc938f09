//! TLS to PostgreSQL, as a PostgreSQL URL asks with `sslmode`: `require`
//! encrypts without checking the server's certificate (as libpq does),
//! `verify-ca` and `verify-full` check it against the web's root
//! authorities or the file `sslrootcert=PATH` names (`verify-full` also
//! checks the host name; rustls always does, so the two are one here).
//! Without `sslmode`, or with `disable` or `prefer`, the connection is
//! plain.

use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres::Config;
use tokio_postgres_rustls::MakeRustlsConnect;

/// How a URL asks its connections to be protected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TlsMode {
    /// Plain (no `sslmode`, `disable` or `prefer`).
    Plain,
    /// `require`: encrypted, the certificate not checked.
    Encrypt,
    /// `verify-ca` / `verify-full`: encrypted and checked, against these
    /// roots (`sslrootcert`) or the web's.
    Verify(Option<String>),
}

/// A URL's connection settings and TLS connector.
pub(crate) struct Connection {
    /// The settings, `sslmode` as tokio-postgres reads it.
    pub config: Config,
    /// The connector (used only when `config` asks for TLS).
    pub tls: MakeRustlsConnect,
}

/// The URL without the TLS parameters tokio-postgres does not read
/// (`verify-ca`, `verify-full` become `require`; `sslrootcert` is taken
/// out), and the mode they asked for.
pub(crate) fn split(url: &str) -> (String, TlsMode) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), TlsMode::Plain);
    };
    let mut mode = TlsMode::Plain;
    let mut root = None;
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (key, value) {
            ("sslmode", "verify-ca" | "verify-full") => {
                mode = TlsMode::Verify(None);
                kept.push("sslmode=require".to_string());
            }
            ("sslmode", "require") => {
                mode = TlsMode::Encrypt;
                kept.push(pair.to_string());
            }
            ("sslrootcert", path) => root = Some(path.to_string()),
            _ => kept.push(pair.to_string()),
        }
    }
    if let TlsMode::Verify(r) = &mut mode {
        *r = root;
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, mode)
}

/// The settings and connector of a PostgreSQL URL.
///
/// # Errors
/// A URL tokio-postgres cannot read, or a root certificate file that
/// cannot be read.
pub(crate) fn connection(url: &str) -> Result<Connection, String> {
    let (plain_url, mode) = split(url);
    let mut config = Config::from_str(&plain_url).map_err(|e| e.to_string())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let client = match &mode {
        TlsMode::Plain => {
            config.ssl_mode(SslMode::Disable);
            builder
                .with_root_certificates(RootCertStore::empty())
                .with_no_client_auth()
        }
        TlsMode::Encrypt => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth(),
        TlsMode::Verify(root) => {
            let mut roots = RootCertStore::empty();
            match root {
                Some(path) => {
                    let certs = CertificateDer::pem_file_iter(path)
                        .map_err(|e| format!("sslrootcert {path}: {e}"))?;
                    for cert in certs {
                        let cert = cert.map_err(|e| format!("sslrootcert {path}: {e}"))?;
                        roots
                            .add(cert)
                            .map_err(|e| format!("sslrootcert {path}: {e}"))?;
                    }
                }
                None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    Ok(Connection {
        config,
        tls: MakeRustlsConnect::new(client),
    })
}

/// `sslmode=require`: any certificate, as libpq accepts it; the
/// handshake's signatures are still checked.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_parameters_are_read_and_the_rest_kept() {
        assert_eq!(
            split("postgres://u@h/db"),
            ("postgres://u@h/db".to_string(), TlsMode::Plain)
        );
        assert_eq!(
            split("postgres://u@h/db?sslmode=require&application_name=x"),
            (
                "postgres://u@h/db?sslmode=require&application_name=x".to_string(),
                TlsMode::Encrypt
            )
        );
        assert_eq!(
            split("postgres://u@h/db?sslrootcert=/ca.pem&sslmode=verify-full"),
            (
                "postgres://u@h/db?sslmode=require".to_string(),
                TlsMode::Verify(Some("/ca.pem".into()))
            )
        );
        assert!(connection("postgres://u@h/db?sslmode=verify-ca").is_ok());
        assert!(
            connection("postgres://u@h/db?sslmode=verify-full&sslrootcert=/no/such.pem")
                .is_err_and(|e| e.contains("/no/such.pem"))
        );
    }
}
