//! TLS to the PostgreSQL records engine, configured the way libpq is: `sslmode` in `engine.url` (`disable`,
//! `prefer` (the default), `require`, `verify-ca`, `verify-full`) and the trusted CA from `sslrootcert` in the URL
//! or `engine.tls_ca_file` (PEM), else the system's trust store. tokio-postgres itself knows only
//! disable/prefer/require, so the verify modes and `sslrootcert` are read here and turned into the rustls
//! verifier. (Redis TLS is the redis crate's own: `rediss://` plus `ratelimit.redis_tls_ca_file`.)

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Why the PostgreSQL TLS settings cannot be used; the records engine reports it as a configuration error.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("not a URL: {0}")]
    NotAUrl(#[from] url::ParseError),
    #[error("sslmode `{0}` is not one of disable, prefer, require, verify-ca, verify-full")]
    UnknownSslMode(String),
    #[error("CA file {}: {source}", path.display())]
    CaFile {
        path: PathBuf,
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    #[error("CA file {} holds no usable certificate", .0.display())]
    NoCertificate(PathBuf),
    #[error("certificate verifier: {0}")]
    Verifier(#[from] rustls::client::VerifierBuilderError),
}

/// Makes rustls use ring (the provider reqwest already brings) whatever other crates enable.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// libpq's `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgSslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// What `engine.url` says about TLS, and the URL tokio-postgres can parse (without the verify modes and
/// `sslrootcert`, which it does not know).
#[derive(Debug)]
pub struct PgTls {
    pub mode: PgSslMode,
    pub root_cert: Option<String>,
    pub url: String,
}

impl PgTls {
    /// Reads `sslmode` and `sslrootcert` from a `postgres://` URL. Errors name the parameter and the values.
    pub fn from_url(raw: &str) -> Result<Self, TlsError> {
        let mut url = url::Url::parse(raw)?;
        let mut mode = PgSslMode::Prefer;
        let mut root_cert = None;
        let mut kept = Vec::new();
        for (k, v) in url.query_pairs() {
            match k.as_ref() {
                "sslmode" => {
                    mode = match v.as_ref() {
                        "disable" => PgSslMode::Disable,
                        "prefer" | "allow" => PgSslMode::Prefer,
                        "require" => PgSslMode::Require,
                        "verify-ca" => PgSslMode::VerifyCa,
                        "verify-full" => PgSslMode::VerifyFull,
                        other => return Err(TlsError::UnknownSslMode(other.to_string())),
                    }
                }
                "sslrootcert" => root_cert = Some(v.into_owned()),
                _ => kept.push((k.into_owned(), v.into_owned())),
            }
        }
        let tokio_mode = match mode {
            PgSslMode::Disable => "disable",
            PgSslMode::Prefer => "prefer",
            _ => "require",
        };
        kept.push(("sslmode".into(), tokio_mode.into()));
        url.query_pairs_mut().clear().extend_pairs(kept);
        // The pairs are written form-encoded, a space as `+`, which tokio-postgres (as libpq) reads as a `+`:
        // `options=-c%20jit%3Don` reached the server as `-c+jit=on` and the connection was refused. A `+` of the
        // values themselves is written `%2B`, so every `+` here is a space.
        let query = url.query().map(|q| q.replace('+', "%20"));
        url.set_query(query.as_deref());
        Ok(Self { mode, root_cert, url: url.into() })
    }

    pub fn tokio_mode(&self) -> SslMode {
        match self.mode {
            PgSslMode::Disable => SslMode::Disable,
            PgSslMode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        }
    }

    /// The connector for this mode: `prefer` and `require` encrypt without checking the certificate (as libpq
    /// does unless a root certificate is given); `verify-ca` checks the chain, `verify-full` also the host name.
    pub fn connector(&self, ca_file: Option<&Path>) -> Result<MakeRustlsConnect, TlsError> {
        install_crypto_provider();
        let ca = self.root_cert.as_deref().map(Path::new).or(ca_file);
        let verify = match self.mode {
            PgSslMode::VerifyFull => Some(true),
            PgSslMode::VerifyCa => Some(false),
            // libpq: with a root certificate given, `require` verifies the chain like verify-ca.
            PgSslMode::Require if ca.is_some() => Some(false),
            _ => None,
        };
        let config = ClientConfig::builder();
        let config = match verify {
            None => config.dangerous().with_custom_certificate_verifier(Arc::new(Relaxed::new(None))),
            Some(check_name) => {
                let roots = Arc::new(root_store(ca)?);
                let webpki = WebPkiServerVerifier::builder(roots).build()?;
                if check_name {
                    config.with_webpki_verifier(webpki)
                } else {
                    config.dangerous().with_custom_certificate_verifier(Arc::new(Relaxed::new(Some(webpki))))
                }
            }
        };
        Ok(MakeRustlsConnect::new(config.with_no_client_auth()))
    }
}

/// The CA certificates in a PEM file, or the system's trust store.
pub fn root_store(ca_file: Option<&Path>) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let unreadable = |source| TlsError::CaFile { path: path.to_path_buf(), source };
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(unreadable)?
                .collect::<Result<_, _>>()
                .map_err(unreadable)?;
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(TlsError::NoCertificate(path.to_path_buf()));
            }
        }
        None => {
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        }
    }
    Ok(roots)
}

/// The libpq modes rustls does not have: `prefer` and `require` without a root certificate encrypt without checking
/// the certificate (`chain: None`; use verify-full to authenticate the server), `verify-ca` checks the chain but
/// not the host name. Handshake signatures are verified in both.
#[derive(Debug)]
struct Relaxed {
    chain: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl Relaxed {
    fn new(chain: Option<Arc<WebPkiServerVerifier>>) -> Self {
        Self { chain, provider: Arc::new(rustls::crypto::ring::default_provider()) }
    }
}

impl ServerCertVerifier for Relaxed {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else { return Ok(ServerCertVerified::assertion()) };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForNameContext { .. })) => {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_modes_and_root_cert_are_taken_out_of_the_url() {
        let t = PgTls::from_url("postgres://u:p@db:5432/x?sslmode=verify-full&sslrootcert=/ca.pem&connect_timeout=3")
            .unwrap();
        assert_eq!(t.mode, PgSslMode::VerifyFull);
        assert_eq!(t.root_cert.as_deref(), Some("/ca.pem"));
        assert_eq!(t.url, "postgres://u:p@db:5432/x?connect_timeout=3&sslmode=require");
        assert_eq!(t.tokio_mode(), SslMode::Require);
        let plain = PgTls::from_url("postgres://db/x").unwrap();
        assert_eq!(plain.mode, PgSslMode::Prefer);
        assert_eq!(PgTls::from_url("postgres://db/x?sslmode=disable").unwrap().tokio_mode(), SslMode::Disable);
        let err = PgTls::from_url("postgres://db/x?sslmode=always").unwrap_err();
        assert!(matches!(&err, TlsError::UnknownSslMode(m) if m == "always"), "{err:?}");
        let err = err.to_string();
        assert!(err.contains("sslmode `always`") && err.contains("verify-full"), "{err}");
    }

    /// The other parameters reach tokio-postgres as they were given: spaces and `+` included.
    #[test]
    fn the_other_parameters_keep_their_spaces_and_plus_signs() {
        use std::str::FromStr;
        let t =
            PgTls::from_url("postgres://db/x?options=-c%20jit%3Don%20-c%20search_path%3Da%2Bb&application_name=dh%201")
                .unwrap();
        let config = tokio_postgres::Config::from_str(&t.url).unwrap();
        assert_eq!(config.get_options(), Some("-c jit=on -c search_path=a+b"));
        assert_eq!(config.get_application_name(), Some("dh 1"));
    }

    #[test]
    fn a_ca_file_without_certificates_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, "not a certificate").unwrap();
        let err = root_store(Some(&file)).unwrap_err();
        assert!(matches!(&err, TlsError::NoCertificate(p) if p == &file), "{err:?}");
        assert!(err.to_string().contains("ca.pem"), "{err}");
    }
}
