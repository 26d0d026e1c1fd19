//! MCP over streamable HTTP at `am serve`'s `/mcp` (rmcp's client): the same
//! tools as `am mcp`, probe and situate among them; behind the token when
//! one is set.

use crate::Server;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

fn text_of(r: &rmcp::model::CallToolResult) -> Value {
    let t = r
        .content
        .iter()
        .find_map(|c| match c {
            rmcp::model::ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .expect("a text content");
    serde_json::from_str(&t).expect("JSON text")
}

fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().unwrap()
}

#[test]
fn an_mcp_client_over_streamable_http_lists_the_same_tools_and_calls_them() {
    // The server and its blocking client live outside the async session
    // (a blocking client may not be dropped inside a runtime).
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("agent.sqlite3");
    let s = Server::start(
        &[
            "--home",
            home.to_str().unwrap(),
            "--token-env",
            "AM_MCP_TOKEN",
        ],
        &[("AM_MCP_TOKEN", "mcp-secret")],
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let id = rt.block_on(session(&s, dir.path()));
    // What the MCP session wrote is the served home's: the HTTP routes see it.
    let (st, v) = s.op_with_token("agent", "payload", &json!({"record_id": id}), "mcp-secret");
    assert_eq!(st, 200, "{v}");
}

/// The MCP session: answers the id of the record it formed.
async fn session(s: &Server, dir: &std::path::Path) -> String {
    // Without the token: 401, as every other route.
    let r = reqwest::Client::new()
        .post(s.url("/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(s.url("/mcp")).auth_header("mcp-secret"),
    );
    let client = ().serve(transport).await.expect("initialized over HTTP");
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("abstractmemory-rs")
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let stdio = stdio_tools(&dir.join("other.sqlite3")).await;
    assert_eq!(names, stdio, "the same tools as am mcp, in the same order");
    for want in ["probe", "situate"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    let probe = tools.iter().find(|t| t.name == "probe").unwrap();
    assert_eq!(
        Value::Object((*probe.input_schema).clone()),
        am_ops::find("probe").unwrap().args_schema().to_value()
    );

    let r = client
        .call_tool(CallToolRequestParams::new("remember").with_arguments(args(json!({
            "record": {"kind": "episode", "title": "Harbor at dawn", "digest": "Watched the boats leave the harbor at dawn."},
            "scope": "life", "owner_id": "castor", "idempotency_key": "dawn"
        }))))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{:?}", text_of(&r));
    let id = text_of(&r)["ok"].as_str().unwrap().to_owned();

    let r = client
        .call_tool(
            CallToolRequestParams::new("recall").with_arguments(args(json!({
                "stimulus": {"cue_text": "harbor boats"}, "scopes": [["life", "castor"]]
            }))),
        )
        .await
        .unwrap();
    let shelf = text_of(&r);
    assert_eq!(
        shelf["ok"]["handles"][0]["provenance"]["record_id"].as_str(),
        Some(id.as_str()),
        "{shelf}"
    );

    let r = client
        .call_tool(
            CallToolRequestParams::new("probe").with_arguments(args(json!({
                "stimulus": {"cue_text": "boats"}, "scopes": [["life", "castor"]],
                "reason": "checking what the harbor held"
            }))),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{:?}", text_of(&r));
    assert_eq!(text_of(&r)["op"], "probe");

    let r = client
        .call_tool(
            CallToolRequestParams::new("situate").with_arguments(args(json!({
                "scopes": [["life", "castor"]], "seq": 1
            }))),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{:?}", text_of(&r));
    assert_eq!(text_of(&r)["op"], "situate");

    client.cancel().await.unwrap();
    id
}

/// The tool names `am mcp` lists over stdio on `home`.
async fn stdio_tools(home: &std::path::Path) -> Vec<String> {
    let mut cmd = tokio::process::Command::new(crate::am());
    cmd.args(["--embedder", "none", "mcp", "--home"]).arg(home);
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let names = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    client.cancel().await.unwrap();
    names
}
