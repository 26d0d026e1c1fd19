//! An MCP client session (rmcp's client over a child process) against
//! `am mcp`: initialize, tools/list, tools/call.

use crate::am;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_lists_the_curated_tools_and_calls_them_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("agent.sqlite3");
    let mut cmd = tokio::process::Command::new(am());
    cmd.args(["--embedder", "none", "mcp", "--home"])
        .arg(&home)
        .args(["--owner", "castor"]);
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("abstractmemory-rs")
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for want in [
        "remember",
        "recall",
        "commit_used",
        "close_record",
        "read_card",
        "write_diary",
        "read_diary",
        "list_tasks",
        "settle_task",
        "exec",
    ] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    // Descriptions and schemas come from the verb table.
    let remember = tools.iter().find(|t| t.name == "remember").unwrap();
    let verb = am_ops::find("remember").unwrap();
    assert!(
        remember
            .description
            .as_deref()
            .unwrap()
            .contains(verb.summary)
    );
    assert_eq!(
        Value::Object((*remember.input_schema).clone()),
        verb.args_schema().to_value()
    );

    let r = client
        .call_tool(CallToolRequestParams::new("remember").with_arguments(args(json!({
            "record": {"kind": "episode", "title": "Harbor at dawn", "digest": "Watched the boats leave the harbor at dawn."},
            "scope": "life",
            "idempotency_key": "dawn"
        }))))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let formed = text_of(&r);
    let id = formed["ok"].as_str().expect("the record id").to_owned();

    let r = client
        .call_tool(
            CallToolRequestParams::new("recall").with_arguments(args(json!({
                "stimulus": {"cue_text": "harbor boats"},
                "scopes": [["life", "castor"]],
                "trace_id": "t-1"
            }))),
        )
        .await
        .unwrap();
    let shelf = text_of(&r);
    let handles = shelf["ok"]["handles"].as_array().expect("handles");
    assert_eq!(
        handles.len(),
        1,
        "the --owner default put the record under castor: {shelf}"
    );
    let handle_id = handles[0]["record_id"].as_str().unwrap().to_owned();

    let r = client
        .call_tool(
            CallToolRequestParams::new("commit_used").with_arguments(args(json!({
                "trace_id": "t-1", "used_record_ids": [handle_id]
            }))),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{:?}", text_of(&r));

    // exec reaches the rest of the table; a session op is refused as an error result.
    let r = client
        .call_tool(
            CallToolRequestParams::new("exec").with_arguments(args(json!({
                "op": "current_seq"
            }))),
        )
        .await
        .unwrap();
    assert!(text_of(&r)["ok"].as_i64().unwrap() >= 3);
    let r = client
        .call_tool(CallToolRequestParams::new("exec").with_arguments(args(json!({"op": "reopen"}))))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert_eq!(text_of(&r)["error"]["kind"], "Unsupported");

    let r = client
        .call_tool(
            CallToolRequestParams::new("close_record").with_arguments(args(json!({
                "record_id": id, "reason": "the boats never left"
            }))),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{:?}", text_of(&r));

    let r = client
        .call_tool(CallToolRequestParams::new("list_tasks").with_arguments(args(json!({}))))
        .await
        .unwrap();
    assert!(text_of(&r)["ok"].is_array(), "{:?}", text_of(&r));
    client.cancel().await.unwrap();
}
