//! The operator page at `/` (docs/server.md, "The operator page"): one HTML
//! file, its script and its style sheet, compiled into the binary (no build
//! step, no CDN). The page holds no data: it reads the home through the same
//! routes any client uses (the ops, the replay stream, the jobs), sending the
//! bearer token when the server has one, and puts every text on the page as
//! text (never as markup).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

/// What the page may load and reach: only this server, no inline script, no
/// framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// `GET /`: the page.
pub async fn index() -> Response {
    asset(INDEX, "text/html; charset=utf-8")
}

/// `GET /page.js`: its script.
pub async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

/// `GET /page.css`: its style sheet.
pub async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}
