//! Who is calling: an API key from `X-API-Key`, `Authorization: Bearer` or the `api_key` query parameter, or
//! the API marketplace proxy's shared secret. Identical copies of one key are fine; different keys conflict.

use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderName};
use datahost_plugin_api::Tier;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::access::keys::{is_well_formed, KeyLookup};
use crate::access::ratelimit::RateSlot;

pub const MARKETPLACE_HEADER: &str = "x-marketplace-proxy-secret";
pub const MARKETPLACE_USER_HEADER: &str = "x-rapidapi-user";

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Rate-limit identity: the key id (never the key), or `marketplace:<user>`.
    pub id: Arc<str>,
    pub tier: Tier,
    /// The key's count in the in-process limiter (none for a marketplace caller, counted by `id`, and for a tier
    /// without a limit).
    pub slot: Option<Arc<RateSlot>>,
}

/// Why a request is not authenticated; each maps to a 401 message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthError {
    Missing,
    Malformed,
    Unknown,
    Revoked,
    Conflict,
    NotBearer,
    BadProxySecret,
}

impl AuthError {
    pub fn message(&self) -> &'static str {
        match self {
            AuthError::Missing => {
                "API key required: pass it in the X-API-Key header, as Authorization: Bearer <key>, or in the api_key query parameter"
            }
            AuthError::Malformed => {
                "API key is malformed (expected svc_live_ followed by 32 hex characters): pass a valid key in the X-API-Key header or the api_key query parameter"
            }
            AuthError::Unknown => {
                "API key is invalid: pass a valid key in the X-API-Key header or the api_key query parameter"
            }
            AuthError::Revoked => {
                "API key has been revoked: pass a current key in the X-API-Key header or the api_key query parameter"
            }
            AuthError::Conflict => {
                "conflicting API keys: the X-API-Key header, Authorization header and api_key query parameter carry different keys; pass one key in the header or the query parameter"
            }
            AuthError::NotBearer => {
                "the Authorization header must use the Bearer scheme (Authorization: Bearer <key>); or pass the key in the X-API-Key header or the api_key query parameter"
            }
            AuthError::BadProxySecret => "invalid marketplace proxy secret in X-Marketplace-Proxy-Secret",
        }
    }
}

/// SHA-256 of the configured marketplace secret; comparing digests keeps the comparison constant-time and
/// independent of the secret's length.
#[derive(Clone)]
pub struct ProxySecret([u8; 32]);

impl ProxySecret {
    pub fn new(secret: &str) -> Self {
        Self(Sha256::digest(secret.as_bytes()).into())
    }
    fn matches(&self, presented: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented).into();
        bool::from(self.0.ct_eq(&digest))
    }
}

const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// Every key the request presents, in order: `X-API-Key` headers, `Authorization: Bearer` headers, the query
/// parameter. Each is handed to `each` as it is read (no list is built: this runs on every request); a header
/// that is not text or not a bearer credential ends the reading with its error.
fn presented_keys<'a>(
    headers: &'a HeaderMap,
    query_key: Option<&'a str>,
    mut each: impl FnMut(&'a str),
) -> Result<(), AuthError> {
    for v in headers.get_all(X_API_KEY) {
        each(v.to_str().map_err(|_| AuthError::Malformed)?.trim());
    }
    for v in headers.get_all(header::AUTHORIZATION) {
        let v = v.to_str().map_err(|_| AuthError::Malformed)?.trim();
        let (scheme, rest) = v.split_once(' ').unwrap_or((v, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(AuthError::NotBearer);
        }
        each(rest.trim());
    }
    if let Some(k) = query_key {
        each(k.trim());
    }
    Ok(())
}

/// What a request presents once its headers are checked: a marketplace caller (with the key it also presents,
/// which must then be valid too), or one well-formed key.
#[derive(Debug)]
pub enum Presented<'a> {
    Marketplace(Caller, Option<&'a str>),
    Key(&'a str),
}

/// The one well-formed key a request presents, if any: every copy must be the same key.
fn one_key<'a>(headers: &'a HeaderMap, query_key: Option<&'a str>) -> Result<Option<&'a str>, AuthError> {
    let (mut first, mut conflict) = (None, false);
    presented_keys(headers, query_key, |key| match first {
        None => first = Some(key),
        Some(seen) => conflict |= seen != key,
    })?;
    let Some(first) = first else { return Ok(None) };
    if conflict {
        return Err(AuthError::Conflict);
    }
    if first.is_empty() {
        return Ok(None);
    }
    if !is_well_formed(first) {
        return Err(AuthError::Malformed);
    }
    Ok(Some(first))
}

/// Checks the credentials a request presents, without looking the key up. `query_key` is the `api_key` query
/// parameter, if any.
pub fn presented<'a>(
    headers: &'a HeaderMap,
    query_key: Option<&'a str>,
    proxy_secret: Option<&ProxySecret>,
) -> Result<Presented<'a>, AuthError> {
    // The marketplace header is looked for only when a secret is configured (otherwise it is ignored).
    if let Some((secret, presented)) = proxy_secret.and_then(|s| Some((s, headers.get(MARKETPLACE_HEADER)?))) {
        if !secret.matches(presented.as_bytes()) {
            return Err(AuthError::BadProxySecret);
        }
        let user = headers
            .get(MARKETPLACE_USER_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(|u| u.chars().filter(|c| c.is_ascii_graphic()).take(64).collect::<String>())
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "proxy".into());
        // A key beside the secret is not ignored: an explicitly invalid one is refused like anywhere else.
        let key = one_key(headers, query_key)?;
        return Ok(Presented::Marketplace(
            Caller { id: Arc::from(format!("marketplace:{user}")), tier: Tier::Rapidapi, slot: None },
            key,
        ));
    }
    one_key(headers, query_key)?.map(Presented::Key).ok_or(AuthError::Missing)
}

/// Turns a key lookup into a caller.
pub fn resolved(lookup: KeyLookup) -> Result<Caller, AuthError> {
    match lookup {
        KeyLookup::Valid { id, tier, slot } => Ok(Caller { id, tier, slot }),
        KeyLookup::Revoked => Err(AuthError::Revoked),
        KeyLookup::Unknown => Err(AuthError::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::keys::generate;
    use axum::http::HeaderValue;

    use crate::access::keys::KeyCache;

    fn authenticate(
        headers: &HeaderMap,
        query_key: Option<&str>,
        keys: &KeyCache,
        proxy: Option<&ProxySecret>,
    ) -> Result<Caller, AuthError> {
        match presented(headers, query_key, proxy)? {
            Presented::Marketplace(c, None) => Ok(c),
            Presented::Marketplace(c, Some(k)) => resolved(keys.lookup(k)).map(|_| c),
            Presented::Key(k) => resolved(keys.lookup(k)),
        }
    }

    fn setup() -> (KeyCache, String, String) {
        let cache = KeyCache::default();
        let (k1, r1) = generate(Tier::Free, "");
        let (k2, mut r2) = generate(Tier::Pro, "");
        r2.revoked_at = Some("x".into());
        cache.replace(&[r1, r2]);
        (cache, k1, k2)
    }

    fn h(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(*k, HeaderValue::from_str(v).unwrap());
        }
        m
    }

    #[test]
    fn matrix() {
        let (cache, good, revoked) = setup();
        let bearer = format!("Bearer {good}");
        assert!(authenticate(&h(&[("x-api-key", &good)]), None, &cache, None).is_ok());
        assert!(authenticate(&h(&[("authorization", &bearer)]), None, &cache, None).is_ok());
        assert!(authenticate(&h(&[]), Some(&good), &cache, None).is_ok());
        assert!(authenticate(&h(&[("x-api-key", &good)]), Some(&good), &cache, None).is_ok(), "identical copies");
        let cases: Vec<(HeaderMap, Option<&str>, AuthError)> = vec![
            (h(&[]), None, AuthError::Missing),
            (h(&[("x-api-key", "nope")]), None, AuthError::Malformed),
            (h(&[("x-api-key", "svc_live_00000000000000000000000000000000")]), None, AuthError::Unknown),
            (h(&[("x-api-key", &revoked)]), None, AuthError::Revoked),
            (h(&[("x-api-key", &good)]), Some("svc_live_00000000000000000000000000000000"), AuthError::Conflict),
            (h(&[("authorization", "Basic abc")]), None, AuthError::NotBearer),
        ];
        for (headers, q, want) in cases {
            assert_eq!(authenticate(&headers, q, &cache, None).unwrap_err(), want);
        }
    }

    #[test]
    fn marketplace_secret() {
        let (cache, _, _) = setup();
        let secret = ProxySecret::new("s3cret");
        let ok = authenticate(&h(&[(MARKETPLACE_HEADER, "s3cret")]), None, &cache, Some(&secret)).unwrap();
        assert_eq!(ok.tier, Tier::Rapidapi);
        let bad = authenticate(&h(&[(MARKETPLACE_HEADER, "wrong")]), None, &cache, Some(&secret)).unwrap_err();
        assert_eq!(bad, AuthError::BadProxySecret);
        // A key beside the secret must itself be valid; a valid one changes nothing (the caller is the proxy).
        let (cache, good, revoked) = setup();
        let with = |key: &str| {
            authenticate(&h(&[(MARKETPLACE_HEADER, "s3cret"), ("x-api-key", key)]), None, &cache, Some(&secret))
        };
        assert_eq!(with("junk").unwrap_err(), AuthError::Malformed);
        assert_eq!(with("svc_live_00000000000000000000000000000000").unwrap_err(), AuthError::Unknown);
        assert_eq!(with(&revoked).unwrap_err(), AuthError::Revoked);
        assert_eq!(with(&good).unwrap().tier, Tier::Rapidapi);
        // Not configured: the header is ignored, so the request needs a key.
        let ignored = authenticate(&h(&[(MARKETPLACE_HEADER, "s3cret")]), None, &cache, None).unwrap_err();
        assert_eq!(ignored, AuthError::Missing);
    }
}
