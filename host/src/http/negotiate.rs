//! The request headers that choose how a cached answer is sent: `If-None-Match` (RFC 9110 section 13.1.2: a list
//! of entity tags or `*`, compared weakly) and `Accept-Encoding` (section 12.5.3: codings with q-values,
//! `identity`, `*`). Pure functions over header values, so the rules are unit-tested apart from any server.

use axum::http::header::{ACCEPT_ENCODING, IF_NONE_MATCH};
use axum::http::HeaderMap;

/// A content coding the host can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
    Br,
}

impl Coding {
    /// The `Content-Encoding` token (none for identity).
    pub fn token(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some("gzip"),
            Coding::Br => Some("br"),
        }
    }
}

/// Whether `If-None-Match` names a tag for which `is_current` holds (an opaque tag, without quotes), or is `*`.
/// Weak comparison: a `W/` prefix is ignored on either side. A malformed member ends the list (what was read
/// before it counts).
pub fn none_match(headers: &HeaderMap, is_current: impl Fn(&str) -> bool) -> bool {
    headers.get_all(IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).any(|v| list_matches(v, &is_current))
}

fn list_matches(mut list: &str, is_current: &impl Fn(&str) -> bool) -> bool {
    loop {
        list = list.trim_start_matches([' ', '\t', ',']);
        if list.is_empty() {
            return false;
        }
        if list.starts_with('*') {
            // `*` matches any current representation (it is meant to stand alone; it is honoured anywhere).
            return true;
        }
        let unprefixed = list.strip_prefix("W/").unwrap_or(list);
        let Some(quoted) = unprefixed.strip_prefix('"') else { return false };
        let Some(end) = quoted.find('"') else { return false };
        if is_current(&quoted[..end]) {
            return true;
        }
        list = &quoted[end + 1..];
    }
}

/// The q-values a request gives the codings the host can send (0: not acceptable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accepted {
    pub br: f32,
    pub gzip: f32,
    pub identity: f32,
}

/// Reads every `Accept-Encoding` header. No header: identity only. A coding not listed takes the q-value of
/// `*` when that is listed; identity not listed (and no `*`) stays acceptable, below any listed coding.
pub fn accepted(headers: &HeaderMap) -> Accepted {
    let mut values = headers.get_all(ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).peekable();
    if values.peek().is_none() {
        return Accepted { br: 0.0, gzip: 0.0, identity: 1.0 };
    }
    let (mut br, mut gzip, mut identity, mut any) = (None, None, None, None);
    for member in values.flat_map(|v| v.split(',')) {
        let mut parts = member.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts.find_map(|p| {
            let (name, value) = p.split_once('=')?;
            name.trim().eq_ignore_ascii_case("q").then(|| qvalue(value.trim()))
        });
        // A member with a malformed weight is not acceptable.
        let q = q.unwrap_or(Some(1.0)).unwrap_or(0.0);
        match coding.as_str() {
            "br" => br = Some(q),
            "gzip" | "x-gzip" => gzip = Some(q),
            "identity" => identity = Some(q),
            "*" => any = Some(q),
            _ => {}
        }
    }
    Accepted {
        br: br.or(any).unwrap_or(0.0),
        gzip: gzip.or(any).unwrap_or(0.0),
        // Listed below every coding the client named, so naming gzip alone prefers gzip.
        identity: identity.or(any).unwrap_or(0.001),
    }
}

/// RFC 9110 `qvalue`: `0`, `1` or a decimal with at most three digits.
fn qvalue(text: &str) -> Option<f32> {
    let valid = text.len() <= 5
        && (text.starts_with('0') || text.starts_with('1'))
        && text.chars().enumerate().all(|(i, c)| if i == 1 { c == '.' } else { c.is_ascii_digit() });
    let q: f32 = text.parse().ok().filter(|_| valid)?;
    (0.0..=1.0).contains(&q).then_some(q)
}

impl Accepted {
    /// The codings to try, best first: acceptable ones by q-value, ties to the smaller encoding (br, gzip,
    /// identity). Identity always comes last when it is not acceptable: a body is never refused for its coding.
    pub fn preference(&self) -> impl Iterator<Item = Coding> {
        let mut order = [(Coding::Br, self.br), (Coding::Gzip, self.gzip), (Coding::Identity, self.identity)];
        // Stable: equal q-values keep br, gzip, identity.
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        order.into_iter().filter(|(c, q)| *q > 0.0 || *c == Coding::Identity).map(|(c, _)| c)
    }

    /// Whether any coding but identity is acceptable.
    pub fn any_compressed(&self) -> bool {
        self.br > 0.0 || self.gzip > 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(name: axum::http::HeaderName, values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(name.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn inm(values: &[&str], tags: &[&str]) -> bool {
        none_match(&headers(IF_NONE_MATCH, values), |tag| tags.contains(&tag))
    }

    #[test]
    fn if_none_match_reads_lists_stars_and_weak_tags() {
        let tags = ["abc", "abc-gzip"];
        assert!(inm(&["\"abc\""], &tags));
        assert!(inm(&["W/\"abc\""], &tags), "weak comparison ignores W/");
        assert!(inm(&["\"x\", \"abc-gzip\""], &tags), "any member of the list");
        assert!(inm(&["\"x\"", "\"abc\""], &tags), "across several header lines");
        assert!(inm(&["*"], &tags));
        assert!(inm(&["\"a,b\", \"abc\""], &tags), "a comma inside a tag is part of it");
        assert!(!inm(&["\"ab\""], &tags));
        assert!(!inm(&["abc"], &tags), "unquoted is malformed");
        assert!(!inm(&["\"abc"], &tags), "unterminated");
        assert!(!inm(&[""], &tags));
        assert!(!inm(&[], &tags));
        assert!(!inm(&["\"x\", junk, \"abc\""], &tags), "a malformed member ends the list");
    }

    fn acc(values: &[&str]) -> Vec<Coding> {
        accepted(&headers(ACCEPT_ENCODING, values)).preference().collect()
    }

    #[test]
    fn accept_encoding_weighs_codings() {
        use Coding::*;
        assert_eq!(acc(&[]), vec![Identity]);
        assert!(!accepted(&HeaderMap::new()).any_compressed());
        assert_eq!(acc(&["gzip, deflate, br"]), vec![Br, Gzip, Identity]);
        assert_eq!(acc(&["gzip"]), vec![Gzip, Identity]);
        assert_eq!(acc(&["br;q=0.5, gzip;q=0.8"]), vec![Gzip, Br, Identity]);
        assert_eq!(acc(&["gzip;q=0, br;q=0"]), vec![Identity]);
        assert_eq!(acc(&["identity"]), vec![Identity]);
        assert_eq!(acc(&["*"]), vec![Br, Gzip, Identity]);
        assert_eq!(acc(&["*;q=0.2, gzip"]), vec![Gzip, Br, Identity]);
        assert_eq!(acc(&["identity;q=1, gzip;q=0.5"]), vec![Identity, Gzip]);
        assert_eq!(acc(&["GZIP ; Q=0.7"]), vec![Gzip, Identity], "case-insensitive");
        assert_eq!(acc(&["x-gzip"]), vec![Gzip, Identity]);
        assert_eq!(acc(&["gzip;q=2", "br;q=abc"]), vec![Identity], "malformed weights refuse");
        assert_eq!(acc(&["gzip;q=0.1234"]), vec![Identity], "at most three decimals");
        assert_eq!(acc(&["compress, deflate"]), vec![Identity], "unknown codings are ignored");
        assert_eq!(acc(&["br", "gzip;q=0.9"]), vec![Br, Gzip, Identity], "several headers combine");
        // identity;q=0 with nothing else acceptable still gets identity (never a 406).
        assert_eq!(acc(&["identity;q=0"]), vec![Identity]);
    }
}
