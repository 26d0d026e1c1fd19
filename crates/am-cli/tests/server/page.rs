//! The operator page at `/`: served from the binary with a strict content
//! policy, outside the token while its data stays behind it, refused to
//! other origins; and in a real browser (headless Chromium over WebDriver)
//! on the demo home: the card shows, a write made through the API appears in
//! the live timeline as text (its markup never runs), a screenshot is kept.

use crate::webdriver::Browser;
use crate::{Server, demo_home, remember, target_dir};
use serde_json::{Value, json};
use std::time::Duration;

const TOKEN: &str = "page-test-token";

fn with_token(home: &std::path::Path) -> Server {
    Server::start_with(
        &[],
        &[
            "--home",
            home.to_str().unwrap(),
            "--token-env",
            "AM_PAGE_TOKEN",
        ],
        &[("AM_PAGE_TOKEN", TOKEN)],
    )
}

#[test]
fn the_page_and_its_files_are_served_from_the_binary_with_a_strict_content_policy() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    for (path, kind) in [
        ("/", "text/html"),
        ("/page.js", "text/javascript"),
        ("/page.css", "text/css"),
    ] {
        let r = s.client.get(s.url(path)).send().unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        let h = r.headers();
        assert!(h["content-type"].to_str().unwrap().starts_with(kind));
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
        assert!(csp.contains("connect-src 'self'"), "no other host: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff");
        let body = r.text().unwrap();
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path}: no CDN, no other host"
        );
    }
    let js = s
        .client
        .get(s.url("/page.js"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        !js.contains("innerHTML")
            && !js.contains("insertAdjacentHTML")
            && !js.contains("document.write")
    );
}

#[test]
fn with_a_token_the_page_is_served_but_its_data_needs_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let s = with_token(&dir.path().join("h.sqlite3"));
    let r = s.client.get(s.url("/")).send().unwrap();
    assert_eq!(r.status().as_u16(), 200, "the page holds no data");
    for path in ["/v1/homes", "/v1/h/jobs", "/v1/h/replay"] {
        let r = s.client.get(s.url(path)).send().unwrap();
        assert_eq!(r.status().as_u16(), 401, "{path}");
    }
    let r = s
        .client
        .get(s.url("/v1/homes"))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(r.json::<Value>().unwrap(), json!({"homes": ["h"]}));
}

#[test]
fn a_browser_request_from_another_origin_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let before = s.seq("h");
    let r = s
        .client
        .post(s.url("/v1/h/ops/remember"))
        .header("Origin", "http://evil.example")
        .header("Content-Type", "text/plain")
        .body(remember("Forged", "forged").to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["kind"], "Forbidden", "{v}");
    assert_eq!(s.seq("h"), before, "nothing written");
    // The page's own origin passes.
    let own = s.base.clone();
    let r = s
        .client
        .post(s.url("/v1/h/ops/current_seq"))
        .header("Origin", own)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[test]
fn the_operator_page_in_a_browser_shows_the_card_and_a_live_write_and_keeps_a_screenshot() {
    let browser = Browser::start();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("demo.sqlite3");
    demo_home(&home);
    let s = with_token(&home);
    // The token rides in the fragment: it never reaches the server's logs,
    // and the page clears it from the address at once.
    browser.goto(&s.url(&format!("/?home=demo&owner=demo#token={TOKEN}")));
    let (ok, card) = browser.wait_text("#card", Duration::from_secs(30), |t| {
        t.contains("identity") && t.contains("demo")
    });
    assert!(ok, "the entity card shows: {card:?}");
    let (ok, tl) = browser.wait_text("#timeline", Duration::from_secs(30), |t| !t.is_empty());
    assert!(ok, "the timeline shows the demo's history: {tl:?}");
    assert_eq!(
        browser.eval("return location.hash;", &[]),
        json!(""),
        "the token left the address bar"
    );

    // A write through the API arrives in the live timeline, as text.
    let title = "Lighthouse at midnight <b id=\"inj\">not bold</b> <img src=x onerror=alert(1)>";
    let r = s
        .client
        .post(s.url("/v1/demo/ops/remember"))
        .bearer_auth(TOKEN)
        .body(
            json!({
                "record": {"kind": "episode", "title": title, "digest": "The lamp turned all night over the rocks."},
                "scope": "life", "owner_id": "demo", "idempotency_key": "page-live-1"
            })
            .to_string(),
        )
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (ok, tl) = browser.wait_text("#timeline", Duration::from_secs(30), |t| {
        t.contains("Lighthouse at midnight <b id=\"inj\">")
    });
    assert!(ok, "the live write is on the timeline as written: {tl:?}");
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('#inj, #timeline img, #timeline b').length;",
            &[]
        ),
        json!(0),
        "a memory's text is shown, never made into elements"
    );
    let status = browser.text("#status");
    assert!(status.starts_with("live"), "{status:?}");
    // Let the panels refresh after the write, then keep the picture.
    std::thread::sleep(Duration::from_millis(1500));
    let shot = target_dir()
        .join("artifacts")
        .join("server-operator-page.png");
    browser.screenshot(&shot);
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "{}",
        shot.display()
    );
    println!("operator page screenshot: {}", shot.display());
}

#[test]
fn the_homes_list_names_each_home_of_the_directory_and_mcp_points_to_its_route() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&["--homes", dir.path().to_str().unwrap()], &[]);
    let r = s
        .client
        .post(s.url("/v1/b-home/ops/remember?create=true"))
        .body(remember("B", "b").to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    std::fs::write(dir.path().join("a.sqlite3"), b"").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not a home").unwrap();
    std::fs::write(dir.path().join(".hidden.sqlite3"), b"").unwrap();
    std::fs::create_dir(dir.path().join("d.sqlite3")).unwrap();
    let v: Value = s
        .client
        .get(s.url("/v1/homes"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(v, json!({"homes": ["a", "b-home"]}));
    let r = s.client.post(s.url("/mcp")).body("{}").send().unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let v: Value = r.json().unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v1/{home}/mcp"),
        "{v}"
    );
}
