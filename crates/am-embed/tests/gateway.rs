//! `AbstractGatewayTextEmbedder` against a real HTTP server on 127.0.0.1.
//! Spec: api.md "Embedders"; FAQ "What embedding interface do I need to implement?".

mod support;

use am_embed::{AbstractGatewayTextEmbedder, DEFAULT_GATEWAY_PATH, Error};
use am_triples::{ErrorKind, TextEmbedder};
use serde_json::json;
use std::time::Duration;
use support::{Reply, TestServer, dead_url, gateway_ok, rows, texts, vector_for};

fn embedder(server: &TestServer) -> AbstractGatewayTextEmbedder {
    AbstractGatewayTextEmbedder::builder(server.url())
        .auth_token("gw-token")
        .build()
        .unwrap()
}

#[test]
fn posts_only_input_to_the_default_path_with_bearer_auth() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    embedder(&server).embed(&texts(2)).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(DEFAULT_GATEWAY_PATH, "/api/gateway/embeddings");
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/api/gateway/embeddings");
    assert_eq!(reqs[0].header("authorization"), Some("Bearer gw-token"));
    assert_eq!(
        reqs[0].json(),
        json!({"input": ["text number 0", "text number 1"]})
    );
}

#[test]
fn without_a_token_no_authorization_header_is_sent() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    let e = AbstractGatewayTextEmbedder::new(server.url()).unwrap();
    e.embed(&texts(1)).unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn a_custom_path_is_used_with_or_without_its_leading_slash() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    for path in ["/custom/embed", "custom/embed"] {
        let e = AbstractGatewayTextEmbedder::builder(format!("{}/", server.url()))
            .path(path)
            .build()
            .unwrap();
        assert_eq!(e.url(), format!("{}/custom/embed", server.url()));
        e.embed(&texts(1)).unwrap();
    }
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/custom/embed", "/custom/embed"]);
}

#[test]
fn results_are_put_back_in_input_order_by_their_index() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    let input = texts(12);
    assert_ne!(support::reply_order(&input), (0..12).collect::<Vec<_>>());
    let out = embedder(&server).embed(&input).unwrap();
    let expected: Vec<Vec<f32>> = input.iter().map(|t| vector_for(t, 8)).collect();
    assert_eq!(out, expected);
    // One request per call: the gateway batches.
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn model_id_is_unknown_until_a_reply_names_one() {
    let server = TestServer::start(|r| gateway_ok(r, 8, Some("qwen3-embedding-0.6b")));
    let e = embedder(&server);
    assert_eq!(e.model_id(), None);
    assert_eq!(TextEmbedder::dimension(&e), None);
    e.embed(&texts(1)).unwrap();
    assert_eq!(e.model_id().as_deref(), Some("qwen3-embedding-0.6b"));
    assert_eq!(TextEmbedder::dimension(&e), Some(8));
}

#[test]
fn a_reply_naming_no_model_leaves_model_id_unknown() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    let e = embedder(&server);
    e.embed(&texts(1)).unwrap();
    assert_eq!(e.model_id(), None);
}

#[test]
fn a_declared_model_id_is_known_before_any_request() {
    let server = TestServer::start(|r| gateway_ok(r, 8, Some("served-name")));
    let e = AbstractGatewayTextEmbedder::builder(server.url())
        .model_id("declared-model")
        .dimension(8)
        .build()
        .unwrap();
    assert_eq!(e.model_id().as_deref(), Some("declared-model"));
    assert_eq!(TextEmbedder::dimension(&e), Some(8));
    e.embed(&texts(1)).unwrap();
    // The operator's declaration wins over what the server names.
    assert_eq!(e.model_id().as_deref(), Some("declared-model"));
}

#[test]
fn an_empty_input_list_makes_no_request() {
    let server = TestServer::start(|r| gateway_ok(r, 8, None));
    assert!(embedder(&server).embed(&[]).unwrap().is_empty());
    assert!(server.requests().is_empty());
}

#[test]
fn a_stalling_gateway_times_out_with_kind_timeout() {
    let server = TestServer::start(|_| Reply::Stall);
    let e = AbstractGatewayTextEmbedder::builder(server.url())
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let err = e.embed_texts(&texts(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
}

#[test]
fn an_unreachable_gateway_is_a_connect_error() {
    let e = AbstractGatewayTextEmbedder::new(dead_url()).unwrap();
    let err = e.embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Embedder);
}

#[test]
fn http_401_carries_the_detail_and_the_token_hint() {
    let server = TestServer::start(|_| Reply::Json(401, json!({"detail": "Missing bearer token"})));
    let err = AbstractGatewayTextEmbedder::new(server.url())
        .unwrap()
        .embed(&texts(1))
        .unwrap_err();
    assert!(matches!(err, Error::Status { status: 401, .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("Missing bearer token") && msg.contains("ABSTRACTGATEWAY_AUTH_TOKEN"),
        "{msg}"
    );
}

#[test]
fn http_500_carries_the_body() {
    let server = TestServer::start(|_| Reply::Json(500, json!({"detail": "provider crashed"})));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 500, message, .. } if message == "provider crashed"),
        "{err}"
    );
}

#[test]
fn malformed_json_is_refused() {
    let server = TestServer::start(|_| Reply::Raw(200, "<html>proxy error</html>".into()));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::MalformedJson { .. }), "{err}");
}

#[test]
fn a_non_list_embedding_is_refused() {
    let server = TestServer::start(|_| {
        Reply::Json(200, json!({"data": [{"index": 0, "embedding": "abc"}]}))
    });
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::MalformedResponse { .. }), "{err}");
}

#[test]
fn a_wrong_vector_count_is_refused() {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        Reply::Json(200, json!({"data": rows(&inputs[..1], |_| 4)}))
    });
    let err = embedder(&server).embed(&texts(3)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongCount {
                expected: 3,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn inconsistent_dimensions_are_refused() {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        Reply::Json(200, json!({"data": rows(&inputs, |i| 4 + i)}))
    });
    let err = embedder(&server).embed(&texts(2)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InconsistentDimension {
                expected: 4,
                got: 5,
                index: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn invalid_configuration_is_refused_with_kind_invalid_input() {
    let cases = [
        AbstractGatewayTextEmbedder::new("").unwrap_err(),
        AbstractGatewayTextEmbedder::builder("http://127.0.0.1:1")
            .path(" ")
            .build()
            .unwrap_err(),
        AbstractGatewayTextEmbedder::builder("http://127.0.0.1:1")
            .auth_token("bad\ntoken")
            .build()
            .unwrap_err(),
    ];
    for err in cases {
        assert!(matches!(err, Error::Config(_)), "{err}");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }
}
