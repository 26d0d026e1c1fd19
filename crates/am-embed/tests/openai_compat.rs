//! `OpenAICompatTextEmbedder` against a real HTTP server on 127.0.0.1.
//! Spec: api.md "Embedders"; getting-started §5.

mod support;

use am_embed::{Error, OpenAICompatTextEmbedder};
use am_triples::{ErrorKind, TextEmbedder};
use serde_json::json;
use std::time::Duration;
use support::{Reply, TestServer, dead_url, openai_ok, rows, texts, vector_for};

const MODEL: &str = "text-embedding-test";

fn embedder(server: &TestServer) -> OpenAICompatTextEmbedder {
    OpenAICompatTextEmbedder::new(format!("{}/v1", server.url()), MODEL).unwrap()
}

fn expected(inputs: &[String], dim: usize) -> Vec<Vec<f32>> {
    inputs.iter().map(|t| vector_for(t, dim)).collect()
}

#[test]
fn posts_model_and_input_to_base_url_slash_embeddings() {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let e = embedder(&server);
    e.embed(&texts(2)).unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/v1/embeddings");
    assert_eq!(reqs[0].header("content-type"), Some("application/json"));
    assert_eq!(
        reqs[0].json(),
        json!({"model": MODEL, "input": ["text number 0", "text number 1"]})
    );
}

#[test]
fn a_trailing_slash_on_base_url_is_not_doubled() {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let e = OpenAICompatTextEmbedder::new(format!("{}/v1/", server.url()), MODEL).unwrap();
    assert_eq!(e.url(), format!("{}/v1/embeddings", server.url()));
    e.embed(&texts(1)).unwrap();
    assert_eq!(server.requests()[0].path, "/v1/embeddings");
}

#[test]
fn results_are_put_back_in_input_order_by_their_index() {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let input = texts(10);
    assert_ne!(support::reply_order(&input), (0..10).collect::<Vec<_>>());
    let out = embedder(&server).embed(&input).unwrap();
    assert_eq!(out, expected(&input, 8));
}

#[test]
fn inputs_are_sent_in_chunks_of_batch_size_and_reassembled_in_order() {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .batch_size(4)
        .build()
        .unwrap();
    let input = texts(10);
    let out = e.embed(&input).unwrap();
    assert_eq!(out, expected(&input, 8));
    let sizes: Vec<usize> = server.requests().iter().map(|r| r.inputs().len()).collect();
    assert_eq!(sizes, vec![4, 4, 2]);
    let sent: Vec<String> = server.requests().iter().flat_map(|r| r.inputs()).collect();
    assert_eq!(sent, input);
}

#[test]
fn default_batch_size_is_64() {
    let server = TestServer::start(|r| openai_ok(r, 4));
    let input = texts(65);
    let out = embedder(&server).embed(&input).unwrap();
    assert_eq!(out, expected(&input, 4));
    let sizes: Vec<usize> = server.requests().iter().map(|r| r.inputs().len()).collect();
    assert_eq!(sizes, vec![64, 1]);
}

#[test]
fn an_empty_input_list_makes_no_request() {
    let server = TestServer::start(|r| openai_ok(r, 4));
    assert!(embedder(&server).embed(&[]).unwrap().is_empty());
    assert!(server.requests().is_empty());
}

#[test]
fn api_key_is_sent_as_a_bearer_token() {
    let server = TestServer::start(|r| openai_ok(r, 4));
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .api_key("sk-test")
        .build()
        .unwrap();
    e.embed(&texts(1)).unwrap();
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-test")
    );
}

#[test]
fn without_an_api_key_no_authorization_header_is_sent() {
    let server = TestServer::start(|r| openai_ok(r, 4));
    embedder(&server).embed(&texts(1)).unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn model_id_is_the_model_and_dimension_is_learned_from_the_first_reply() {
    let server = TestServer::start(|r| openai_ok(r, 6));
    let e = embedder(&server);
    assert_eq!(e.model_id().as_deref(), Some(MODEL));
    assert_eq!(TextEmbedder::dimension(&e), None);
    e.embed(&texts(1)).unwrap();
    assert_eq!(TextEmbedder::dimension(&e), Some(6));
}

#[test]
fn a_declared_dimension_is_known_before_any_request() {
    let server = TestServer::start(|r| openai_ok(r, 6));
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .dimension(6)
        .build()
        .unwrap();
    assert_eq!(TextEmbedder::dimension(&e), Some(6));
    assert!(server.requests().is_empty());
}

#[test]
fn a_stalling_server_times_out_with_kind_timeout() {
    let server = TestServer::start(|_| Reply::Stall);
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Timeout);
    let shared = e.embed_texts(&texts(1)).unwrap_err();
    assert_eq!(shared.kind(), ErrorKind::Timeout);
}

#[test]
fn an_unreachable_server_is_a_connect_error_naming_url_and_model() {
    let url = format!("{}/v1", dead_url());
    let e = OpenAICompatTextEmbedder::new(&url, MODEL).unwrap();
    let err = e.embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Embedder);
    let msg = err.to_string();
    assert!(msg.contains(&url) && msg.contains(MODEL), "{msg}");
}

#[test]
fn http_4xx_carries_the_bodys_error_message() {
    let server = TestServer::start(|_| {
        Reply::Json(
            400,
            json!({"error": {"message": "model 'text-embedding-test' not found", "type": "invalid_request_error"}}),
        )
    });
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    match &err {
        Error::Status {
            status, message, ..
        } => {
            assert_eq!(*status, 400);
            assert_eq!(message, "model 'text-embedding-test' not found");
        }
        other => panic!("expected a status error, got {other}"),
    }
    assert_eq!(err.kind(), ErrorKind::Embedder);
    let shared = embedder(&server).embed_texts(&texts(1)).unwrap_err();
    assert_eq!(shared.kind(), ErrorKind::Embedder);
    assert!(shared.to_string().contains("HTTP 400"), "{shared}");
}

#[test]
fn http_5xx_carries_a_plain_text_body() {
    let server = TestServer::start(|_| Reply::Raw(503, "model is loading, retry later".into()));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 503, message, .. } if message == "model is loading, retry later"),
        "{err}"
    );
}

#[test]
fn http_401_hints_at_the_api_key() {
    let server = TestServer::start(|_| Reply::Json(401, json!({"error": {"message": "bad key"}})));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("bad key") && msg.contains("api_key"), "{msg}");
}

#[test]
fn malformed_json_is_refused() {
    let server = TestServer::start(|_| Reply::Raw(200, "{\"data\": [".into()));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::MalformedJson { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Embedder);
}

#[test]
fn a_reply_without_a_data_list_is_refused() {
    let server = TestServer::start(|_| Reply::Json(200, json!({"embeddings": [[1.0]]})));
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::MalformedResponse { .. }), "{err}");
}

#[test]
fn fewer_vectors_than_inputs_are_refused() {
    let server = TestServer::start(|r| {
        let mut inputs = r.inputs();
        inputs.pop();
        Reply::Json(200, json!({"data": rows(&inputs, |_| 4)}))
    });
    let err = embedder(&server).embed(&texts(3)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongCount {
                expected: 3,
                got: 2,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Embedder);
}

#[test]
fn more_vectors_than_inputs_are_refused() {
    let server = TestServer::start(|r| {
        let mut inputs = r.inputs();
        inputs.push("extra".into());
        Reply::Json(200, json!({"data": rows(&inputs, |_| 4)}))
    });
    let err = embedder(&server).embed(&texts(2)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongCount {
                expected: 2,
                got: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn inconsistent_dimensions_within_a_reply_are_refused() {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        Reply::Json(
            200,
            json!({"data": rows(&inputs, |i| if i == 2 { 5 } else { 4 })}),
        )
    });
    let err = embedder(&server).embed(&texts(3)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InconsistentDimension {
                expected: 4,
                got: 5,
                index: 2,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Embedder);
}

#[test]
fn inconsistent_dimensions_across_batches_are_refused_and_return_nothing() {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        let dim = if inputs[0] == "text number 0" { 4 } else { 7 };
        Reply::Json(200, json!({"data": rows(&inputs, |_| dim)}))
    });
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .batch_size(2)
        .build()
        .unwrap();
    let err = e.embed(&texts(3)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InconsistentDimension {
                expected: 4,
                got: 7,
                index: 2,
                ..
            }
        ),
        "{err}"
    );
    // Nothing was learned from a refused call.
    assert_eq!(TextEmbedder::dimension(&e), None);
}

#[test]
fn a_dimension_change_between_calls_is_refused() {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        let dim = if inputs[0] == "first" { 4 } else { 8 };
        Reply::Json(200, json!({"data": rows(&inputs, |_| dim)}))
    });
    let e = embedder(&server);
    e.embed(&["first".to_owned()]).unwrap();
    let err = e.embed(&["second".to_owned()]).unwrap_err();
    assert!(
        matches!(&err, Error::InconsistentDimension { expected: 4, got: 8, basis, .. } if basis == "earlier replies"),
        "{err}"
    );
}

#[test]
fn a_reply_contradicting_the_declared_dimension_is_refused() {
    let server = TestServer::start(|r| openai_ok(r, 4));
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .dimension(384)
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).unwrap_err();
    assert!(
        matches!(&err, Error::InconsistentDimension { expected: 384, got: 4, basis, .. } if basis == "declared"),
        "{err}"
    );
}

#[test]
fn a_value_beyond_f32_range_is_refused_as_non_finite() {
    let server = TestServer::start(|_| {
        Reply::Raw(
            200,
            r#"{"data":[{"index":0,"embedding":[0.5,1e39,0.1]}]}"#.into(),
        )
    });
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NonFinite {
                index: 0,
                position: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn nan_tokens_are_refused_as_malformed_json() {
    // Python's json module writes NaN for float('nan'); it is not JSON.
    let server = TestServer::start(|_| {
        Reply::Raw(
            200,
            r#"{"data":[{"index":0,"embedding":[NaN,0.1]}]}"#.into(),
        )
    });
    let err = embedder(&server).embed(&texts(1)).unwrap_err();
    assert!(matches!(err, Error::MalformedJson { .. }), "{err}");
}

#[test]
fn a_failing_later_batch_returns_no_vectors() {
    let server = TestServer::start(|r| {
        if r.inputs()[0] == "text number 0" {
            openai_ok(r, 4)
        } else {
            Reply::Json(500, json!({"error": {"message": "out of memory"}}))
        }
    });
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .batch_size(2)
        .build()
        .unwrap();
    let err = e.embed(&texts(4)).unwrap_err();
    assert!(matches!(err, Error::Status { status: 500, .. }), "{err}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn invalid_configuration_is_refused_with_kind_invalid_input() {
    let cases = [
        OpenAICompatTextEmbedder::new("  ", MODEL).unwrap_err(),
        OpenAICompatTextEmbedder::new("http://127.0.0.1:1/v1", " ").unwrap_err(),
        OpenAICompatTextEmbedder::builder("http://127.0.0.1:1/v1", MODEL)
            .batch_size(0)
            .build()
            .unwrap_err(),
        OpenAICompatTextEmbedder::builder("http://127.0.0.1:1/v1", MODEL)
            .timeout(Duration::ZERO)
            .build()
            .unwrap_err(),
        OpenAICompatTextEmbedder::builder("http://127.0.0.1:1/v1", MODEL)
            .dimension(0)
            .build()
            .unwrap_err(),
    ];
    for err in cases {
        assert!(matches!(err, Error::Config(_)), "{err}");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }
}
